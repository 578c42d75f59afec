/** The provider's endpoints, under /oidc so that they never meet /v0 or the web app's pages (docs/oidc.md, "Endpoints"). */
export const providerRoutes = {
  authorization: '/oidc/auth',
  token: '/oidc/token',
  userinfo: '/oidc/userinfo',
  jwks: '/oidc/jwks',
  introspection: '/oidc/token/introspection',
  revocation: '/oidc/token/revocation',
  end_session: '/oidc/session/end',
  device_authorization: '/oidc/device/auth',
  // The web app's page (the device flow's verification_uri): the provider serves nothing there.
  code_verification: '/device',
} as const;
