import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startProcess, waitFor, type ManagedProcess } from '@latchkey/test-kit';
import { ISSUER, onGateway } from './oidc-relying-party';

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
const MOD_AUTH_OPENIDC = path.join(MODULES, 'mod_auth_openidc.so');

/** The page behind the module (server-side includes): the claims it passes as variables, and the ID token it verified, one per line. */
const CLAIMS_PAGE = ['sub', 'email', 'preferred_username']
  .map((claim) => `${claim}=<!--#echo var="OIDC_CLAIM_${claim}" -->`)
  .concat('id_token=<!--#echo var="OIDC_id_token" -->', '')
  .join('\n');

export interface ApacheRelyingParty {
  /** Everything Apache logged (its error log), for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Debian's mod_auth_openidc (OpenID Certified) as a relying party of the
 * stack's provider: Apache 2.4 in one foreground process (`-X`) with its
 * own ServerRoot in a temporary folder, on `port`, configured from the
 * provider's discovery document like any installation of the module. The
 * issuer's host (ISSUER) is not a real one: the module's own calls
 * (discovery, keys, token) go through a forward proxy that sends them to
 * the gateway, as the test's browser does with its requests.
 */
export async function startApacheRelyingParty(options: {
  readonly gatewayUrl: string;
  readonly port: number;
  readonly clientId: string;
  readonly clientSecret: string;
}): Promise<ApacheRelyingParty> {
  if (!existsSync(APACHE) || !existsSync(MOD_AUTH_OPENIDC)) {
    throw new Error(`Apache with mod_auth_openidc is missing (${APACHE}, ${MOD_AUTH_OPENIDC}): apt-get install apache2 libapache2-mod-auth-openidc`);
  }
  const proxy = await startIssuerProxy(options.gatewayUrl);
  const root = mkdtempSync(path.join(tmpdir(), 'latchkey-apache-'));
  const documents = path.join(root, 'htdocs');
  mkdirSync(path.join(documents, 'protected'), { recursive: true });
  writeFileSync(path.join(documents, 'protected', 'claims'), CLAIMS_PAGE);
  // Run as root, Apache serves as www-data, which must read the page.
  for (const folder of [root, documents, path.join(documents, 'protected')]) chmodSync(folder, 0o755);
  const origin = `http://127.0.0.1:${options.port}`;
  writeFileSync(path.join(root, 'apache2.conf'), configuration({ ...options, root, documents, origin, proxyPort: proxy.port }));

  const apache = startProcess('apache', APACHE, ['-X', '-f', path.join(root, 'apache2.conf')], { cwd: root, env: { PATH: process.env.PATH } });
  // Apache opens its error log as a file: a pipe from Node is a socket, which it cannot open by name.
  const output = () => `${apache.output()}${existsSync(path.join(root, 'error.log')) ? readFileSync(path.join(root, 'error.log'), 'utf8') : ''}`;
  // Any answer will do: a single foreground process logs nothing when it is ready.
  const started = await waitFor(() => (apache.child.exitCode !== null ? 'exited' : fetch(`${origin}/`).then(() => 'serving', () => undefined)), {
    description: 'Apache to serve',
  }).catch(() => 'late');
  if (started !== 'serving') {
    const log = output();
    await stopAll(apache, proxy.server, root);
    throw new Error(`Apache did not start (${started}):\n${log}`);
  }
  return {
    output,
    stop: () => stopAll(apache, proxy.server, root),
  };
}

function configuration(settings: {
  readonly root: string;
  readonly documents: string;
  readonly origin: string;
  readonly port: number;
  readonly proxyPort: number;
  readonly clientId: string;
  readonly clientSecret: string;
}): string {
  const modules = ['mpm_prefork', 'authn_core', 'authz_core', 'authz_user', 'include', 'auth_openidc'];
  return `ServerRoot "${settings.root}"
ServerName 127.0.0.1
Listen 127.0.0.1:${settings.port}
PidFile "${settings.root}/apache2.pid"
DefaultRuntimeDir "${settings.root}"
ErrorLog "${settings.root}/error.log"
LogLevel notice auth_openidc:info
${process.getuid?.() === 0 ? 'User www-data\nGroup www-data\n' : ''}${modules.map((name) => `LoadModule ${name}_module ${MODULES}/mod_${name}.so`).join('\n')}
DocumentRoot "${settings.documents}"

OIDCProviderMetadataURL ${ISSUER}/.well-known/openid-configuration
OIDCOutgoingProxy 127.0.0.1:${settings.proxyPort}
OIDCClientID ${settings.clientId}
OIDCClientSecret ${settings.clientSecret}
OIDCProviderTokenEndpointAuth client_secret_basic
OIDCRedirectURI ${settings.origin}/protected/redirect_uri
OIDCCryptoPassphrase ${randomBytes(32).toString('base64url')}
OIDCScope "openid email profile"
OIDCPKCEMethod S256
OIDCPassIDTokenAs claims serialized
OIDCPassClaimsAs environment

<Directory "${settings.documents}/protected">
  Options +Includes
  SetOutputFilter INCLUDES
</Directory>
<Location /protected>
  AuthType openid-connect
  Require valid-user
</Location>
`;
}

/** A forward proxy for Apache's own requests: those to the issuer's origin reach the gateway; nothing else is served. */
async function startIssuerProxy(gatewayUrl: string): Promise<{ server: Server; port: number }> {
  const server = createServer((incoming, outgoing) => {
    // A forward proxy is asked for absolute URLs; anything else is no request of the module's.
    const target = URL.canParse(incoming.url ?? '') ? new URL(incoming.url!) : undefined;
    if (target?.origin !== ISSUER) {
      outgoing.writeHead(403).end();
      return;
    }
    const headers = { ...incoming.headers };
    delete headers['proxy-connection'];
    const forwarded = httpRequest(onGateway(target, gatewayUrl), { method: incoming.method, headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * A browser's navigations to one site, keeping the site's cookies: over
 * node:http, because fetch always says `Sec-Fetch-Mode: cors`, and
 * mod_auth_openidc answers such a script's request 401 instead of sending
 * it to the provider.
 */
export class SiteBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly origin: string) {}

  /** GETs a path of the site as a top-level navigation; redirects are the caller's to follow. */
  open(pathAndQuery: string): Promise<{ status: number; location: string | undefined; text: string }> {
    const headers: Record<string, string> = { accept: 'text/html', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return new Promise((resolve, reject) => {
      const sent = httpRequest(new URL(pathAndQuery, this.origin), { headers }, (answer) => {
        for (const line of answer.headers['set-cookie'] ?? []) this.keepCookie(line);
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, location: answer.headers.location, text }));
      });
      sent.on('error', reject);
      sent.end();
    });
  }

  private keepCookie(line: string): void {
    const match = /^([^=;\s]+)=([^;]*)/.exec(line);
    if (!match) return;
    const [, name, value] = match as unknown as [string, string, string];
    if (value === '' || /Max-Age=0/i.test(line) || /Expires=Thu, 01[ -]Jan[ -]1970/i.test(line)) this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

async function stopAll(apache: ManagedProcess, proxy: Server, root: string): Promise<void> {
  await apache.stop();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
}
