// Generated from the gateway's OpenAPI document by `pnpm gen` (openapi-typescript). Do not edit.
export interface paths {
    "/v0/auth/cancel-email-change": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a requested email change with the token mailed to the current address; its confirmation link stops working. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The token from the mail link. */
                        token: string;
                    };
                };
            };
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/change-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mail a confirmation link to the new address, and to the current one a link that cancels the change; the email changes when the first is used. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        current_password: string;
                        /** @description An email address that can receive mail: at most 64 characters before the @ and a host name after it; stored trimmed and lower-cased. */
                        new_email: string;
                    };
                };
            };
            responses: {
                /** @description Accepted; no body. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/change-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change the password; other sessions end and this one gets a new cookie. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        current_password: string;
                        /** @description 8-128 characters, NFKC-normalised before hashing; not equal to the email or handle. */
                        new_password: string;
                    };
                };
            };
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/complete-signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create the account of a pending provider sign-up with a chosen handle; sets the session cookie. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 3-32 characters of [A-Za-z0-9_]; stored lower-cased. */
                        handle: string;
                        /** @description The token from the mail link. */
                        pending_token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/confirm-email-change": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm an email change with the token mailed to the new address. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The token from the mail link. */
                        token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/forgot-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mail a password reset link if an account has this email. Always 202. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An email address; stored trimmed and lower-cased. */
                        email: string;
                    };
                };
            };
            responses: {
                /** @description Accepted; no body. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with email and password; sets the session cookie. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An email address; stored trimmed and lower-cased. */
                        email: string;
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"] | components["schemas"]["TotpChallenge"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the current session and clear the cookie. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/oauth/{provider}/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The provider’s consent URL; with a session, `purpose=link` adds the provider to the account and `purpose=reauthenticate` proves the user again. */
        get: {
            parameters: {
                query?: {
                    purpose?: "login" | "link" | "reauthenticate";
                };
                header?: never;
                path: {
                    /** @description `google` or `github`. */
                    provider: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: uri */
                            authorization_url: string;
                            state: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/oauth/{provider}/link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add the provider identity to the signed-in account, with a code and a `link` state. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description `google` or `github`. */
                    provider: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        code: string;
                        /** @description The token from the mail link. */
                        state: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OAuthConnection"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/oauth/{provider}/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Finish a provider sign-in with its code and state: signed in, linked, pending signup, or a TOTP challenge. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description `google` or `github`. */
                    provider: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        code: string;
                        /** @description The token from the mail link. */
                        state: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "signed_in" | "linked";
                            user: components["schemas"]["User"];
                        } | {
                            avatar_url: string;
                            email: string;
                            name: string;
                            pending_token: string;
                            /** @enum {string} */
                            status: "pending_signup";
                        } | components["schemas"]["TotpChallenge"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/oauth/{provider}/reauthenticate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Prove again who you are through a linked provider, with a code and a `reauthenticate` state. With TOTP on it proves the first factor only: 400 auth:second_factor_required, then POST /v0/auth/reauthenticate with a code within 5 minutes. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description `google` or `github`. */
                    provider: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        code: string;
                        /** @description The token from the mail link. */
                        state: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @description RFC 3339, UTC.
                             */
                            reauthenticated_at: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/oauth/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The providers linked to the signed-in account. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["OAuthConnection"][];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/oauth/connections/unlink": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Remove a provider from the account after a recent re-authentication; refused for the last way to sign in. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        provider: string;
                    };
                };
            };
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/oauth/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The providers sign-in and linking work with here, so that a client offers only those. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The providers this installation configured, Google first. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                /**
                                 * @description The `{provider}` of the OAuth paths.
                                 * @enum {string}
                                 */
                                id: "google" | "github";
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The passkeys of the signed-in account, oldest first. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["Passkey"][];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/passkeys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a passkey, unless it is the account’s last way to sign in; a notice is mailed. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Rename a passkey. */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description What the user calls it, such as “Work laptop”; 1 to 64 characters. */
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Passkey"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v0/auth/passkeys/authentication/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start signing in with a passkey: request options for navigator.credentials.get(), valid 5 minutes in this browser. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PasskeyRequestOptions"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/passkeys/authentication/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with what the authenticator answered; sets the session cookie. No TOTP code follows: a passkey is multi-factor. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The PublicKeyCredential the browser answered, as its toJSON() gives it. */
                        response: {
                            id: string;
                            rawId: string;
                            response: {
                                clientDataJSON: string;
                            } & {
                                [key: string]: unknown;
                            };
                            /** @enum {string} */
                            type: "public-key";
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/passkeys/registration/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start adding a passkey: creation options for navigator.credentials.create(), valid 5 minutes in this session. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PasskeyCreationOptions"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/passkeys/registration/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Finish adding a passkey with what the authenticator answered; a notice is mailed. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description What the user calls it, such as “Work laptop”; 1 to 64 characters. */
                        name?: string;
                        /** @description The PublicKeyCredential the browser answered, as its toJSON() gives it. */
                        response: {
                            id: string;
                            rawId: string;
                            response: {
                                clientDataJSON: string;
                            } & {
                                [key: string]: unknown;
                            };
                            /** @enum {string} */
                            type: "public-key";
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Passkey"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/reauthenticate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Prove again who you are, as strongly as a sign-in: the password (with a TOTP or backup code when TOTP is on), a code after a provider re-authentication, or a passkey. Privileged changes need a recent proof. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A backup code, `xxxxx-xxxxx`; hyphen and case are ignored. */
                        backup_code?: string;
                        /** @description The 6-digit code of the authenticator app. */
                        code?: string;
                        /** @description The PublicKeyCredential the browser answered, as its toJSON() gives it. */
                        passkey?: {
                            id: string;
                            rawId: string;
                            response: {
                                clientDataJSON: string;
                            } & {
                                [key: string]: unknown;
                            };
                            /** @enum {string} */
                            type: "public-key";
                        } & {
                            [key: string]: unknown;
                        };
                        password?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * Format: date-time
                             * @description RFC 3339, UTC.
                             */
                            reauthenticated_at: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/resend-verification-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mail a new verification link: for the session user, or for `email` without a session. Always 202. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An email address; stored trimmed and lower-cased. */
                        email?: string;
                    } | null;
                };
            };
            responses: {
                /** @description Accepted; no body. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/reset-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Set a new password with the token from the reset mail; every session of the account ends, and passkeys and provider links added in the hours before go. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 8-128 characters, NFKC-normalised before hashing; not equal to the email or handle. */
                        new_password: string;
                        /** @description The token from the mail link. */
                        token: string;
                    };
                };
            };
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/session/org": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Make this session act for one of the caller’s organisations, or for none (null). */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An organisation of the caller, or null for none. */
                        org_id: string | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Organization"] | null;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Live sessions of the signed-in account, newest first. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["Session"][];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End one of the caller’s own sessions. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/sso/discover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Home-realm discovery before a password: whether the email’s domain signs in through an organisation’s SSO, and whether it must. About the domain only. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        email: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description That organisation enforces SSO: send the person to the IdP, a password would be refused. */
                            enforced: boolean;
                            /** @description The domain is verified by an organisation with a connection: offer its SSO. */
                            sso: boolean;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/sso/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a sign-in through the connection of an email’s verified domain or of an organisation: the IdP URL to send the browser to. 404 sso:connection_not_found. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        email: string;
                        return_to?: string;
                    } | {
                        org_slug: string;
                        return_to?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: uri */
                            authorization_url: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A short-lived JWT for the signed-in session, for services that verify requests locally against /.well-known/jwks.json; with the organisation the session acts for, its org_* claims as the membership stands now. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ServiceToken"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/totp/backup-codes/regenerate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace every backup code; needs a current TOTP code. Answers the 10 new codes, once. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The 6-digit code of the authenticator app. */
                        code: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Shown once. */
                            backup_codes: string[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/totp/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Turn TOTP off; needs a current TOTP code and a recent proof as strong as a sign-in. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The 6-digit code of the authenticator app. */
                        code: string;
                    };
                };
            };
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/totp/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Turn TOTP on with a code of the new secret; answers the 10 backup codes, once. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The 6-digit code of the authenticator app. */
                        code: string;
                        /** @description The token from the mail link. */
                        setup_token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Shown once. */
                            backup_codes: string[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/totp/setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start enabling TOTP: a fresh secret, its otpauth URI as a QR code, and a setup token. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            otpauth_uri: string;
                            /** @description `data:image/png;base64,…` of otpauth_uri. */
                            qr_code: string;
                            /** @description Base32, for manual entry. */
                            secret: string;
                            /** @description Valid 10 minutes; give it to enable. */
                            setup_token: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/totp/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether TOTP is on, since when, and how many backup codes are left. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            backup_codes_remaining: number;
                            enabled: boolean;
                            enabled_at: string | null;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/totp/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Finish a sign-in that answered totp_required, with a code or a backup code; sets the session cookie. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A backup code, `xxxxx-xxxxx`; hyphen and case are ignored. */
                        backup_code?: string;
                        /** @description The 6-digit code of the authenticator app. */
                        code?: string;
                        /** @description The token from the mail link. */
                        temp_token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/auth/verify-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify the email with the token from the verification mail. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The token from the mail link. */
                        token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Accept an invitation: the account must have the invited address, verified (403 org:invitation_email_mismatch otherwise). */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The token from the mail link. */
                        token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Organization"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/invitations/lookup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** What an invitation link invites to; no session needed. 400 org:invitation_invalid for an unknown, used, revoked or expired one. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The token from the mail link. */
                        token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["InvitationLookup"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/oidc/device/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Take the code a device shows (device authorization grant); answers the interaction in which the user allows or refuses that device. Wrong codes are counted per account and per client address. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The code the device shows, with or without its dash, in any case. */
                        user_code: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OidcDeviceVerified"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/oidc/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The applications the signed-in user allowed, newest first. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OidcGrantList"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/oidc/grants/{client_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Withdraw an application’s access: its refresh and access tokens stop working at once. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    client_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/oidc/interactions/{uid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What a sign-in request of an application asks: the client, its scopes, whether the browser must sign in or re-authenticate. Only the browser that started the request gets it; works without a session. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OidcInteraction"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/oidc/interactions/{uid}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Allow the sign-in request as the signed-in user (the browser that started it only); the browser follows redirect_to back to the authorization endpoint. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OidcRedirect"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/oidc/interactions/{uid}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Refuse the sign-in request (the browser that started it only); the client receives error=access_denied. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OidcRedirect"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisations the caller is a member of. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["Organization"][];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create an organisation; the caller is its owner. Needs a verified email. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 1-100 characters after trimming, one line. */
                        name: string;
                        /** @description 3-48 characters of a-z, 0-9 and "-", not starting or ending with "-"; unique. */
                        slug: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Organization"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One organisation of the caller’s. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Organization"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete an organisation with its members, roles and invitations (org:delete: owners), after a recent proof of identity. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Rename an organisation, or change its slug (org:update); enforce SSO for the accounts of its verified domains, or stop (sso:manage; 409 org:domain_unverified without a verified domain). */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        slug?: string;
                        /** @description Enforce SSO for the accounts of its verified domains (sso:manage; needs a verified domain). */
                        sso_enforced?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Organization"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v0/orgs/{org_id}/audit-log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit log, newest first (audit:read); filters and keyset pages. */
        get: {
            parameters: {
                query?: {
                    /** @description Only entries of this action, such as org.member.added. */
                    action?: string;
                    /** @description Only entries of this actor. */
                    actor_id?: string;
                    /** @description Opaque; from next_cursor of the previous page. */
                    cursor?: string;
                    limit?: number;
                    /** @description Entries written at or after this time. */
                    since?: string;
                    /** @description Entries written before this time. */
                    until?: string;
                };
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: {
                                action: string;
                                actor: {
                                    id: string;
                                    /** @enum {string} */
                                    type: "user" | "scim" | "admin" | "system";
                                };
                                /**
                                 * Format: date-time
                                 * @description RFC 3339, UTC.
                                 */
                                created_at: string;
                                data: {
                                    [key: string]: unknown;
                                };
                                /** @description SHA-256, hex, of the entry without `hash` as canonical JSON (docs/audit.md). */
                                hash: string;
                                /** Format: uuid */
                                id: string;
                                ip: string;
                                /** Format: uuid */
                                organization_id: string;
                                prev_hash: string;
                                seq: number;
                                target: {
                                    id: string;
                                    type: string;
                                };
                                user_agent: string;
                            }[];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/audit-log/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every entry, oldest first, as NDJSON, streamed (audit:read); docs/audit.md shows how to check it. */
        get: {
            parameters: {
                query?: {
                    /** @description Entries written at or after this time. */
                    since?: string;
                    /** @description Entries written before this time. */
                    until?: string;
                };
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One audit entry per line, in chain order. A cut stream (no final chunk) is a failed export. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": string;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-ndjson": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation’s domains, by name (sso:manage). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["OrganizationDomain"][];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Claim a domain (sso:manage): pending, with the DNS TXT record that proves it. Not a public suffix, not a free-mail domain. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A domain the organisation owns, such as example.com; Unicode or punycode. */
                        domain: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganizationDomain"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/domains/{domain}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One domain of the organisation (sso:manage). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    domain: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganizationDomain"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove a domain (sso:manage). Removing the last verified one turns SSO enforcement off. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    domain: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/domains/{domain}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify a domain by its TXT record (sso:manage); 409 org:domain_unverified while the record is missing, 409 org:domain_taken when another organisation verified it. At most RATE_LIMIT_DOMAIN_VERIFICATIONS per account and hour. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    domain: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganizationDomain"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The invitations, newest first, of one status or all (invitations:manage); keyset pages. */
        get: {
            parameters: {
                query?: {
                    /** @description Opaque; from next_cursor of the previous page. */
                    cursor?: string;
                    limit?: number;
                    status?: "pending" | "accepted" | "revoked" | "expired";
                };
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["OrganizationInvitation"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Invite an address with a role (invitations:manage); mails it a link to accept. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An email address; stored trimmed and lower-cased. */
                        email: string;
                        role: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganizationInvitation"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/invitations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Withdraw a pending invitation (invitations:manage): its link fails from then on. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The members, in the order they joined (members:read); keyset pages. */
        get: {
            parameters: {
                query?: {
                    /** @description Opaque; from next_cursor of the previous page. */
                    cursor?: string;
                    limit?: number;
                };
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["OrganizationMember"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/members/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a member (members:manage; only an owner removes an owner), or leave: the caller’s own id. 409 org:last_owner for the last owner. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                    user_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Give a member another role (members:manage; only an owner grants or takes away owner; 409 org:last_owner for the last owner). */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                    user_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        role: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganizationMember"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v0/orgs/{org_id}/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The roles of an organisation: the built-in ones, then the custom ones (members:read). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["OrganizationRole"][];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Add a custom role (roles:manage). Nobody makes a role with one of Latchkey’s permissions they do not hold. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 1-48 characters of a-z, 0-9, "_" and "-", starting with a letter; not owner, admin or member. */
                        name: string;
                        /** @description 1-100 permissions. */
                        permissions: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganizationRole"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/roles/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One role (members:read). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganizationRole"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a custom role (roles:manage); 409 org:role_in_use while members or pending invitations hold it. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Replace a custom role’s permissions (roles:manage); built-in roles do not change. */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 1-100 permissions. */
                        permissions: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganizationRole"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v0/orgs/{org_id}/scim/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation’s SCIM groups with their roles, by name, at most 1,000 (scim:manage). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["ScimGroupRole"][];
                            /** @description Whether the organisation has more groups than listed. */
                            truncated: boolean;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/scim/groups/{group_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Map a SCIM group to a role (scim:manage): its SCIM-provisioned members hold it; null unmaps. Not owner. */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    group_id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        role: string | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ScimGroup"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v0/orgs/{org_id}/scim/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation’s SCIM tokens, without secrets (scim:manage). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["ScimToken"][];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Issue a SCIM bearer token (scim:manage); the token is shown once and stored hashed. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default  */
                        description?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ScimTokenCreated"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/scim/tokens/{token_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a SCIM token (scim:manage): calls with it fail at once. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                    token_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/sso/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation’s connections, oldest first (sso:manage). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["SsoConnection"][];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Add a SAML (metadata XML, or entity id, sign-in URL and certificates) or OpenID Connect connection (sso:manage). */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        allow_idp_initiated?: boolean;
                        /** @description Where the IdP puts a person’s details; absent names take the defaults of docs/sso.md. */
                        attribute_mapping?: {
                            /** @description Attribute or claim with the email; default: `email`, `mail` and the usual URIs, else an email NameID. */
                            email?: string;
                            groups?: string;
                            name?: string;
                        };
                        /** @description Default `member`. */
                        default_role?: string;
                        /** @description Roles by IdP group; the first group the person is in wins, else default_role. */
                        group_roles?: {
                            group: string;
                            role: string;
                        }[];
                        idp_certificates?: string[];
                        idp_entity_id?: string;
                        /** @description The IdP’s metadata XML; or the three fields below. */
                        idp_metadata_xml?: string;
                        idp_sso_url?: string;
                        /** @description With sp_private_key: assertions are then encrypted to it, and only encrypted ones accepted. */
                        sp_certificate?: string;
                        /** @description PEM, RSA; sealed at rest, never answered. */
                        sp_private_key?: string;
                        /** @enum {string} */
                        type: "saml";
                    } | {
                        /** @description Where the IdP puts a person’s details; absent names take the defaults of docs/sso.md. */
                        attribute_mapping?: {
                            /** @description Attribute or claim with the email; default: `email`, `mail` and the usual URIs, else an email NameID. */
                            email?: string;
                            groups?: string;
                            name?: string;
                        };
                        client_id: string;
                        client_secret: string;
                        /** @description Default `member`. */
                        default_role?: string;
                        /** @description Roles by IdP group; the first group the person is in wins, else default_role. */
                        group_roles?: {
                            group: string;
                            role: string;
                        }[];
                        issuer: string;
                        /** @enum {string} */
                        type: "oidc";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SsoConnection"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/sso/connections/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One connection (sso:manage); another organisation’s is 404. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SsoConnection"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove a connection (sso:manage); it is no longer a way in. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a connection (sso:manage): new IdP metadata or certificates (rollover), options, role mapping, a new client secret. */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        allow_idp_initiated?: boolean;
                        /** @description Where the IdP puts a person’s details; absent names take the defaults of docs/sso.md. */
                        attribute_mapping?: {
                            /** @description Attribute or claim with the email; default: `email`, `mail` and the usual URIs, else an email NameID. */
                            email?: string;
                            groups?: string;
                            name?: string;
                        };
                        client_id?: string;
                        client_secret?: string;
                        /** @description Default `member`. */
                        default_role?: string;
                        /** @description Assertions in clear again. */
                        drop_sp_key_pair?: boolean;
                        /** @description Roles by IdP group; the first group the person is in wins, else default_role. */
                        group_roles?: {
                            group: string;
                            role: string;
                        }[];
                        idp_certificates?: string[];
                        idp_entity_id?: string;
                        /** @description The IdP’s metadata XML; or the three fields below. */
                        idp_metadata_xml?: string;
                        idp_sso_url?: string;
                        issuer?: string;
                        /** @description With sp_private_key: assertions are then encrypted to it, and only encrypted ones accepted. */
                        sp_certificate?: string;
                        /** @description PEM, RSA; sealed at rest, never answered. */
                        sp_private_key?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SsoConnection"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v0/orgs/{org_id}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation’s webhook endpoints, oldest first (webhooks:manage). */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["WebhookEndpoint"][];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Register a webhook endpoint (webhooks:manage); the answer holds its secret, shown this once. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default  */
                        description?: string;
                        /** @description Event type names such as `org.member.added`, or `["*"]`. */
                        events: string[];
                        /** @description Where deliveries are posted: http or https; in production not an internal address. */
                        url: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One webhook endpoint (webhooks:manage); without its secret. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpoint"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove a webhook endpoint and its secrets (webhooks:manage). */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a webhook endpoint’s URL, events, description or whether it is enabled (webhooks:manage). */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        description?: string;
                        enabled?: boolean;
                        /** @description Event type names such as `org.member.added`, or `["*"]`. */
                        events?: string[];
                        /** @description Where deliveries are posted: http or https; in production not an internal address. */
                        url?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpoint"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v0/orgs/{org_id}/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The endpoint’s delivery attempts, newest first (webhooks:manage). */
        get: {
            parameters: {
                query?: {
                    /** @description Opaque; from next_cursor of the previous page. */
                    cursor?: string;
                    limit?: number;
                };
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["WebhookDelivery"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/webhooks/{id}/deliveries/{message_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a message the endpoint was sent once more, with the same webhook-id and body (webhooks:manage). */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    message_id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Accepted; no body. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give a webhook endpoint a new secret, shown this once (webhooks:manage); the replaced one keeps signing beside it for 24 hours. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookEndpointRotated"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/orgs/{org_id}/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send the endpoint a `webhook.test` message, whatever events it subscribes to (webhooks:manage). */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    org_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Accepted; no body. */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Posts, newest first. */
        get: {
            parameters: {
                query?: {
                    author_id?: string;
                    /** @description Opaque; from next_cursor of the previous page. */
                    cursor?: string;
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["PostSummary"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Write a post. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 1 byte to POSTS_MAX_CONTENT_BYTES (1 MiB) of UTF-8. */
                        content: string;
                        /** @description 1-200 characters after trimming; stored trimmed. */
                        title: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/posts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One post with its content. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete one’s own post; its stored content and index entry follow shortly. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change the title and/or content of one’s own post. */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        content?: string;
                        title?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Post"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v0/search/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Posts matching words of their title or content, best match first (eventually consistent). */
        get: {
            parameters: {
                query: {
                    /** @description Opaque; from next_cursor of the previous page. */
                    cursor?: string;
                    limit?: number;
                    /** @description Web-search syntax; at most 16 words (the posts service counts them). */
                    q: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["PostSummary"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/sso/oidc/{connection_id}/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The OpenID Connect redirect URI of a connection: redirects to the web app, signed in or at /sso/error?code=… */
        get: {
            parameters: {
                query?: {
                    code?: string;
                    error?: string;
                    state?: string;
                };
                header?: never;
                path: {
                    connection_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/sso/saml/{connection_id}/acs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The SAML assertion consumer service (HTTP-POST binding): redirects to the web app, signed in or at /sso/error?code=… */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    connection_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        latchkey_repost?: "1";
                        RelayState?: string;
                        SAMLResponse: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/sso/saml/{connection_id}/metadata": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The SAML service provider’s metadata XML of a connection, for the IdP. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    connection_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description application/samlmetadata+xml */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": string;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register an account; a verification mail is sent. No session is created. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An email address that can receive mail: at most 64 characters before the @ and a host name after it; stored trimmed and lower-cased. */
                        email: string;
                        /** @description 3-32 characters of [A-Za-z0-9_]; stored lower-cased. */
                        handle: string;
                        /** @description 8-128 characters, NFKC-normalised before hashing; not equal to the email or handle. */
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/users/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in account, with the organisation this session acts for. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Me"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete the account, its sessions, second factor, passkeys, provider links, posts (with their content), memberships and the organisations it alone belongs to. Without a password, after a recent re-authentication. 409 org:last_owner while it is the last owner of an organisation with other members. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A TOTP code or a backup code; required when TOTP is on. */
                        code?: string;
                        /** @description Required when the account has a password. */
                        password?: string;
                    } | null;
                };
            };
            responses: {
                /** @description No content. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0/users/me/action-logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the signed-in account did to posts, newest first. */
        get: {
            parameters: {
                query?: {
                    /** @description Opaque; from next_cursor of the previous page. */
                    cursor?: string;
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["ActionLog"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ActionLog: {
            /** @enum {string} */
            action: "post:create" | "post:edit" | "post:delete";
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            resource_id: string;
            /** @constant */
            resource_type: "post";
        };
        ActionLogInput: {
            /** @enum {string} */
            action: "post:create" | "post:edit" | "post:delete";
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            resource_id: string;
            /** @constant */
            resource_type: "post";
        };
        ActiveOrganization: {
            /** Format: uuid */
            id: string;
            /** @description Its permissions there, each `resource:action`, sorted. */
            permissions: string[];
            /** @description The account’s role there. */
            role: string;
            slug: string;
        };
        ActiveOrganizationInput: {
            /** Format: uuid */
            id: string;
            /** @description Its permissions there, each `resource:action`, sorted. */
            permissions: string[];
            /** @description The account’s role there. */
            role: string;
            slug: string;
        };
        InvitationLookup: {
            email: string;
            org: {
                /** Format: uuid */
                id: string;
                name: string;
                slug: string;
            };
            role: string;
        };
        InvitationLookupInput: {
            email: string;
            org: {
                /** Format: uuid */
                id: string;
                name: string;
                slug: string;
            };
            role: string;
        };
        Me: {
            /** @description The organisation this session acts for (PUT /v0/auth/session/org), or null; null too once the account is no longer a member of it. */
            active_org: components["schemas"]["ActiveOrganization"] | null;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            email: string;
            email_verified: boolean;
            email_verified_at: string | null;
            handle: string;
            has_password: boolean;
            /** Format: uuid */
            id: string;
            /** @description Passkeys that can sign in to the account. */
            passkeys_count: number;
            totp_enabled: boolean;
        };
        MeInput: {
            /** @description The organisation this session acts for (PUT /v0/auth/session/org), or null; null too once the account is no longer a member of it. */
            active_org: components["schemas"]["ActiveOrganizationInput"] | null;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            email: string;
            email_verified: boolean;
            email_verified_at: string | null;
            handle: string;
            has_password: boolean;
            /** Format: uuid */
            id: string;
            /** @description Passkeys that can sign in to the account. */
            passkeys_count: number;
            totp_enabled: boolean;
        };
        OAuthConnection: {
            email: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            linked_at: string;
            provider: string;
            provider_user_id: string;
        };
        OAuthConnectionInput: {
            email: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            linked_at: string;
            provider: string;
            provider_user_id: string;
        };
        OidcDeviceVerified: {
            /** @description The interaction to confirm or deny. */
            uid: string;
        };
        OidcDeviceVerifiedInput: {
            /** @description The interaction to confirm or deny. */
            uid: string;
        };
        OidcGrantList: {
            items: {
                client_id: string;
                client_name: string;
                /**
                 * Format: date-time
                 * @description RFC 3339, UTC.
                 */
                created_at: string;
                scopes: string[];
            }[];
        };
        OidcGrantListInput: {
            items: {
                client_id: string;
                client_name: string;
                /**
                 * Format: date-time
                 * @description RFC 3339, UTC.
                 */
                created_at: string;
                scopes: string[];
            }[];
        };
        OidcInteraction: {
            client: {
                client_id: string;
                client_name: string;
            };
            /** @description The user already allowed these scopes, or the client is first-party: nothing is left to allow; the browser goes to resume_url. Never for a device. */
            consented: boolean;
            /** @description A device (a TV, a command-line tool) is being signed in, not this browser: the device flow. */
            device: boolean;
            /** @description The client requires a multi-factor sign-in the session has not made: a passkey, or the password with a TOTP code. An account with neither must add one first. */
            multi_factor_required: boolean;
            /**
             * @description login: the browser must sign in, or re-authenticate (reauthentication_required), or the client asked for another account than the one signed in; consent: the user allows the client.
             * @enum {string}
             */
            prompt: "login" | "consent";
            /** @description The session must prove itself again first (prompt=login, max_age, or a client that requires multi-factor): POST /v0/auth/reauthenticate. */
            reauthentication_required: boolean;
            /**
             * Format: uri
             * @description Present when nothing is left to ask: the authorization endpoint address that resumes the request, which answers the client from the Latchkey session without a page.
             */
            resume_url?: string;
            /** @description The scopes the client asks for. */
            scopes: string[];
            uid: string;
        };
        OidcInteractionInput: {
            client: {
                client_id: string;
                client_name: string;
            };
            /** @description The user already allowed these scopes, or the client is first-party: nothing is left to allow; the browser goes to resume_url. Never for a device. */
            consented: boolean;
            /** @description A device (a TV, a command-line tool) is being signed in, not this browser: the device flow. */
            device: boolean;
            /** @description The client requires a multi-factor sign-in the session has not made: a passkey, or the password with a TOTP code. An account with neither must add one first. */
            multi_factor_required: boolean;
            /**
             * @description login: the browser must sign in, or re-authenticate (reauthentication_required), or the client asked for another account than the one signed in; consent: the user allows the client.
             * @enum {string}
             */
            prompt: "login" | "consent";
            /** @description The session must prove itself again first (prompt=login, max_age, or a client that requires multi-factor): POST /v0/auth/reauthenticate. */
            reauthentication_required: boolean;
            /**
             * Format: uri
             * @description Present when nothing is left to ask: the authorization endpoint address that resumes the request, which answers the client from the Latchkey session without a page.
             */
            resume_url?: string;
            /** @description The scopes the client asks for. */
            scopes: string[];
            uid: string;
        };
        OidcRedirect: {
            /**
             * Format: uri
             * @description Where the browser goes next: back to the authorization endpoint, which answers the client.
             */
            redirect_to: string;
        };
        OidcRedirectInput: {
            /**
             * Format: uri
             * @description Where the browser goes next: back to the authorization endpoint, which answers the client.
             */
            redirect_to: string;
        };
        Organization: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            name: string;
            /** @description The caller’s permissions in it. */
            permissions: string[];
            /** @description The caller’s role in it. */
            role: string;
            slug: string;
            /** @description Whether the accounts of its verified domains sign in only through its SSO connection. */
            sso_enforced: boolean;
        };
        OrganizationDomain: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** @description Normalised: lower case, punycode, no trailing dot. */
            domain: string;
            /** @enum {string} */
            status: "pending" | "verified";
            /** @description How to prove the domain; while it is pending. */
            verification?: {
                /** @description `_latchkey-challenge.{domain}` */
                name: string;
                /** @constant */
                type: "dns_txt";
                /** @description What a TXT record at `name` must hold. */
                value: string;
            };
            verified_at: string | null;
        };
        OrganizationDomainInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** @description Normalised: lower case, punycode, no trailing dot. */
            domain: string;
            /** @enum {string} */
            status: "pending" | "verified";
            /** @description How to prove the domain; while it is pending. */
            verification?: {
                /** @description `_latchkey-challenge.{domain}` */
                name: string;
                /** @constant */
                type: "dns_txt";
                /** @description What a TXT record at `name` must hold. */
                value: string;
            };
            verified_at: string | null;
        };
        OrganizationInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            name: string;
            /** @description The caller’s permissions in it. */
            permissions: string[];
            /** @description The caller’s role in it. */
            role: string;
            slug: string;
            /** @description Whether the accounts of its verified domains sign in only through its SSO connection. */
            sso_enforced: boolean;
        };
        OrganizationInvitation: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            email: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            expires_at: string;
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The inviting account (its invitations go with it).
             */
            invited_by: string;
            role: string;
            /** @enum {string} */
            status: "pending" | "accepted" | "revoked" | "expired";
        };
        OrganizationInvitationInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            email: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            expires_at: string;
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The inviting account (its invitations go with it).
             */
            invited_by: string;
            role: string;
            /** @enum {string} */
            status: "pending" | "accepted" | "revoked" | "expired";
        };
        OrganizationMember: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            joined_at: string;
            role: string;
            /** @enum {string} */
            source: "creator" | "invitation" | "sso" | "scim" | "admin";
            user: {
                email: string;
                handle: string;
                /** Format: uuid */
                id: string;
            };
        };
        OrganizationMemberInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            joined_at: string;
            role: string;
            /** @enum {string} */
            source: "creator" | "invitation" | "sso" | "scim" | "admin";
            user: {
                email: string;
                handle: string;
                /** Format: uuid */
                id: string;
            };
        };
        OrganizationRole: {
            /** @description owner, admin and member: they do not change. */
            built_in: boolean;
            name: string;
            /** @description Each `resource:action` (`^[a-z][a-z0-9_.-]*:[a-z*][a-z0-9_.*-]*$`), sorted. */
            permissions: string[];
        };
        OrganizationRoleInput: {
            /** @description owner, admin and member: they do not change. */
            built_in: boolean;
            name: string;
            /** @description Each `resource:action` (`^[a-z][a-z0-9_.-]*:[a-z*][a-z0-9_.*-]*$`), sorted. */
            permissions: string[];
        };
        Passkey: {
            /**
             * Format: uuid
             * @description The authenticator model; all zeros when it does not say.
             */
            aaguid: string;
            /** @description Whether it is synced now. */
            backed_up: boolean;
            /** @description Whether it can be synced to the user’s other devices. */
            backup_eligible: boolean;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            last_used_at: string | null;
            name: string;
            /** @description Whether a sign-in with it reported a signature counter that did not grow, as a copy of its key would: it signs in to nothing any more, and should be removed. */
            suspected_clone: boolean;
            transports: string[];
        };
        PasskeyCreationOptions: {
            authenticatorSelection: {
                residentKey: string;
                userVerification: string;
            } & {
                [key: string]: unknown;
            };
            challenge: string;
            excludeCredentials: ({
                id: string;
                type: string;
            } & {
                [key: string]: unknown;
            })[];
            pubKeyCredParams: ({
                alg: number;
                type: string;
            } & {
                [key: string]: unknown;
            })[];
            rp: {
                id: string;
                name: string;
            } & {
                [key: string]: unknown;
            };
            user: {
                displayName: string;
                id: string;
                name: string;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        PasskeyCreationOptionsInput: {
            authenticatorSelection: {
                residentKey: string;
                userVerification: string;
            } & {
                [key: string]: unknown;
            };
            challenge: string;
            excludeCredentials: ({
                id: string;
                type: string;
            } & {
                [key: string]: unknown;
            })[];
            pubKeyCredParams: ({
                alg: number;
                type: string;
            } & {
                [key: string]: unknown;
            })[];
            rp: {
                id: string;
                name: string;
            } & {
                [key: string]: unknown;
            };
            user: {
                displayName: string;
                id: string;
                name: string;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        PasskeyInput: {
            /**
             * Format: uuid
             * @description The authenticator model; all zeros when it does not say.
             */
            aaguid: string;
            /** @description Whether it is synced now. */
            backed_up: boolean;
            /** @description Whether it can be synced to the user’s other devices. */
            backup_eligible: boolean;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            last_used_at: string | null;
            name: string;
            /** @description Whether a sign-in with it reported a signature counter that did not grow, as a copy of its key would: it signs in to nothing any more, and should be removed. */
            suspected_clone: boolean;
            transports: string[];
        };
        PasskeyRequestOptions: {
            challenge: string;
            rpId: string;
            userVerification: string;
        } & {
            [key: string]: unknown;
        };
        PasskeyRequestOptionsInput: {
            challenge: string;
            rpId: string;
            userVerification: string;
        } & {
            [key: string]: unknown;
        };
        Post: {
            author: {
                handle: string;
                /** Format: uuid */
                id: string;
            };
            content: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            title: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
        };
        PostInput: {
            author: {
                handle: string;
                /** Format: uuid */
                id: string;
            };
            content: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            title: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
        };
        PostSummary: {
            author: {
                handle: string;
                /** Format: uuid */
                id: string;
            };
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            title: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
        };
        PostSummaryInput: {
            author: {
                handle: string;
                /** Format: uuid */
                id: string;
            };
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            /** Format: uuid */
            id: string;
            title: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
        };
        /** @description RFC 9457 problem details with the API error code. */
        Problem: {
            /** @enum {string} */
            code: "validation:invalid_input" | "validation:unsupported_media_type" | "validation:payload_too_large" | "validation:headers_too_large" | "route:not_found" | "route:method_not_allowed" | "auth:unauthorized" | "auth:invalid_credentials" | "auth:email_not_verified" | "auth:account_disabled" | "auth:wrong_password" | "auth:password_not_set" | "auth:origin_forbidden" | "auth:reauthentication_required" | "auth:second_factor_required" | "auth:token_invalid" | "auth:sso_required" | "user:handle_taken" | "user:email_taken" | "user:not_found" | "session:not_found" | "oauth:provider_not_found" | "oauth:state_invalid" | "oauth:code_invalid" | "oauth:provider_unavailable" | "oauth:email_not_verified" | "oauth:pending_signup_invalid" | "oauth:already_linked" | "oauth:identity_not_linked" | "oauth:connection_not_found" | "oauth:last_login_method" | "totp:already_enabled" | "totp:not_enabled" | "totp:invalid_code" | "totp:setup_token_invalid" | "totp:temp_token_invalid" | "totp:temp_token_expired" | "totp:backup_code_exhausted" | "totp:secret_generation_failed" | "totp:qr_generation_failed" | "passkey:challenge_invalid" | "passkey:verification_failed" | "passkey:not_found" | "passkey:already_registered" | "passkey:last_login_method" | "org:not_found" | "org:forbidden" | "org:slug_taken" | "org:limit_reached" | "org:last_owner" | "org:already_member" | "org:invitation_pending" | "org:invitation_invalid" | "org:invitation_email_mismatch" | "org:invitation_not_found" | "org:role_in_use" | "org:role_not_found" | "org:role_exists" | "org:member_not_found" | "org:domain_not_found" | "org:domain_unverified" | "org:domain_taken" | "sso:connection_not_found" | "sso:response_invalid" | "sso:domain_mismatch" | "scim:unauthorized" | "scim:not_found" | "scim:token_not_found" | "scim:group_not_found" | "scim:invalid_filter" | "scim:invalid_syntax" | "scim:invalid_path" | "scim:invalid_value" | "scim:no_target" | "scim:mutability" | "scim:uniqueness" | "webhook:not_found" | "webhook:disabled" | "oidc:interaction_not_found" | "oidc:client_not_found" | "oidc:client_exists" | "oidc:grant_not_found" | "oidc:user_code_invalid" | "oidc:token_reused" | "post:not_found" | "post:forbidden" | "rate_limit:exceeded" | "service:unavailable" | "internal:error";
            detail: string;
            errors?: {
                field: string;
                message: string;
            }[];
            /** @description With auth:sso_required: the organisation whose SSO connection the account signs in through. */
            org_slug?: string;
            status: number;
            title: string;
            /** @constant */
            type: "about:blank";
        };
        /** @description RFC 9457 problem details with the API error code. */
        ProblemInput: {
            /** @enum {string} */
            code: "validation:invalid_input" | "validation:unsupported_media_type" | "validation:payload_too_large" | "validation:headers_too_large" | "route:not_found" | "route:method_not_allowed" | "auth:unauthorized" | "auth:invalid_credentials" | "auth:email_not_verified" | "auth:account_disabled" | "auth:wrong_password" | "auth:password_not_set" | "auth:origin_forbidden" | "auth:reauthentication_required" | "auth:second_factor_required" | "auth:token_invalid" | "auth:sso_required" | "user:handle_taken" | "user:email_taken" | "user:not_found" | "session:not_found" | "oauth:provider_not_found" | "oauth:state_invalid" | "oauth:code_invalid" | "oauth:provider_unavailable" | "oauth:email_not_verified" | "oauth:pending_signup_invalid" | "oauth:already_linked" | "oauth:identity_not_linked" | "oauth:connection_not_found" | "oauth:last_login_method" | "totp:already_enabled" | "totp:not_enabled" | "totp:invalid_code" | "totp:setup_token_invalid" | "totp:temp_token_invalid" | "totp:temp_token_expired" | "totp:backup_code_exhausted" | "totp:secret_generation_failed" | "totp:qr_generation_failed" | "passkey:challenge_invalid" | "passkey:verification_failed" | "passkey:not_found" | "passkey:already_registered" | "passkey:last_login_method" | "org:not_found" | "org:forbidden" | "org:slug_taken" | "org:limit_reached" | "org:last_owner" | "org:already_member" | "org:invitation_pending" | "org:invitation_invalid" | "org:invitation_email_mismatch" | "org:invitation_not_found" | "org:role_in_use" | "org:role_not_found" | "org:role_exists" | "org:member_not_found" | "org:domain_not_found" | "org:domain_unverified" | "org:domain_taken" | "sso:connection_not_found" | "sso:response_invalid" | "sso:domain_mismatch" | "scim:unauthorized" | "scim:not_found" | "scim:token_not_found" | "scim:group_not_found" | "scim:invalid_filter" | "scim:invalid_syntax" | "scim:invalid_path" | "scim:invalid_value" | "scim:no_target" | "scim:mutability" | "scim:uniqueness" | "webhook:not_found" | "webhook:disabled" | "oidc:interaction_not_found" | "oidc:client_not_found" | "oidc:client_exists" | "oidc:grant_not_found" | "oidc:user_code_invalid" | "oidc:token_reused" | "post:not_found" | "post:forbidden" | "rate_limit:exceeded" | "service:unavailable" | "internal:error";
            detail: string;
            errors?: {
                field: string;
                message: string;
            }[];
            /** @description With auth:sso_required: the organisation whose SSO connection the account signs in through. */
            org_slug?: string;
            status: number;
            title: string;
            /** @constant */
            type: "about:blank";
        };
        ScimGroup: {
            display_name: string;
            /** Format: uuid */
            id: string;
            /** @description The role its members hold; null when unmapped. */
            role: string | null;
        };
        ScimGroupInput: {
            display_name: string;
            /** Format: uuid */
            id: string;
            /** @description The role its members hold; null when unmapped. */
            role: string | null;
        };
        ScimGroupRole: {
            display_name: string;
            /** Format: uuid */
            id: string;
            /** @description Users of the organisation in the group. */
            member_count: number;
            /** @description The role its members hold; null when unmapped. */
            role: string | null;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
        };
        ScimGroupRoleInput: {
            display_name: string;
            /** Format: uuid */
            id: string;
            /** @description Users of the organisation in the group. */
            member_count: number;
            /** @description The role its members hold; null when unmapped. */
            role: string | null;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
        };
        ScimToken: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** Format: uuid */
            id: string;
            /** @description When the identity provider last called with it (to the minute); null if never. */
            last_used_at: string | null;
        };
        ScimTokenCreated: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** Format: uuid */
            id: string;
            /** @description When the identity provider last called with it (to the minute); null if never. */
            last_used_at: string | null;
            /** @description The bearer token, shown this once. */
            token: string;
        };
        ScimTokenCreatedInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** Format: uuid */
            id: string;
            /** @description When the identity provider last called with it (to the minute); null if never. */
            last_used_at: string | null;
            /** @description The bearer token, shown this once. */
            token: string;
        };
        ScimTokenInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** Format: uuid */
            id: string;
            /** @description When the identity provider last called with it (to the minute); null if never. */
            last_used_at: string | null;
        };
        ServiceToken: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            expires_at: string;
            token: string;
        };
        ServiceTokenInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            expires_at: string;
            token: string;
        };
        Session: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            current: boolean;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            expires_at: string;
            /** @description Public id of the session; never the cookie value. */
            id: string;
            ip: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            last_seen_at: string;
            user_agent: string;
        };
        SessionInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            current: boolean;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            expires_at: string;
            /** @description Public id of the session; never the cookie value. */
            id: string;
            ip: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            last_seen_at: string;
            user_agent: string;
        };
        SsoConnection: {
            allow_idp_initiated?: boolean;
            /** @description Where the IdP puts a person’s details; absent names take the defaults of docs/sso.md. */
            attribute_mapping: {
                /** @description Attribute or claim with the email; default: `email`, `mail` and the usual URIs, else an email NameID. */
                email?: string;
                groups?: string;
                name?: string;
            };
            client_id?: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            default_role: string;
            /** @description Roles by IdP group; the first group the person is in wins, else default_role. */
            group_roles: {
                group: string;
                role: string;
            }[];
            /** Format: uuid */
            id: string;
            /** @description base64 DER; two during a rollover. */
            idp_certificates?: string[];
            idp_entity_id?: string;
            idp_sso_url?: string;
            issuer?: string;
            /** Format: uuid */
            org_id: string;
            /** @description For OpenID Connect: register this at the provider. */
            redirect_uri?: string;
            /** @description For SAML: the values to paste into the IdP (docs/sso.md). */
            sp?: {
                acs_url: string;
                entity_id: string;
                metadata_url: string;
            };
            /** @description The SP’s encryption certificate (base64 DER), when assertions are encrypted. */
            sp_certificate?: string | null;
            /** @enum {string} */
            type: "saml" | "oidc";
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
        };
        SsoConnectionInput: {
            allow_idp_initiated?: boolean;
            /** @description Where the IdP puts a person’s details; absent names take the defaults of docs/sso.md. */
            attribute_mapping: {
                /** @description Attribute or claim with the email; default: `email`, `mail` and the usual URIs, else an email NameID. */
                email?: string;
                groups?: string;
                name?: string;
            };
            client_id?: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            default_role: string;
            /** @description Roles by IdP group; the first group the person is in wins, else default_role. */
            group_roles: {
                group: string;
                role: string;
            }[];
            /** Format: uuid */
            id: string;
            /** @description base64 DER; two during a rollover. */
            idp_certificates?: string[];
            idp_entity_id?: string;
            idp_sso_url?: string;
            issuer?: string;
            /** Format: uuid */
            org_id: string;
            /** @description For OpenID Connect: register this at the provider. */
            redirect_uri?: string;
            /** @description For SAML: the values to paste into the IdP (docs/sso.md). */
            sp?: {
                acs_url: string;
                entity_id: string;
                metadata_url: string;
            };
            /** @description The SP’s encryption certificate (base64 DER), when assertions are encrypted. */
            sp_certificate?: string | null;
            /** @enum {string} */
            type: "saml" | "oidc";
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
        };
        /** @description Answered instead of a session when the account has TOTP on. */
        TotpChallenge: {
            temp_token: string;
            /** @constant */
            totp_required: true;
        };
        /** @description Answered instead of a session when the account has TOTP on. */
        TotpChallengeInput: {
            temp_token: string;
            /** @constant */
            totp_required: true;
        };
        User: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            email: string;
            email_verified: boolean;
            email_verified_at: string | null;
            handle: string;
            has_password: boolean;
            /** Format: uuid */
            id: string;
            /** @description Passkeys that can sign in to the account. */
            passkeys_count: number;
            totp_enabled: boolean;
        };
        UserInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            email: string;
            email_verified: boolean;
            email_verified_at: string | null;
            handle: string;
            has_password: boolean;
            /** Format: uuid */
            id: string;
            /** @description Passkeys that can sign in to the account. */
            passkeys_count: number;
            totp_enabled: boolean;
        };
        WebhookDelivery: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            attempted_at: string;
            duration_ms: number;
            /** @description `org.member.added`, …, or `webhook.test`. */
            event_type: string;
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The `webhook-id` the endpoint was sent: the same on every attempt of a message.
             */
            message_id: string;
            /** @description The HTTP status answered; null when none came in time. */
            response_status: number | null;
            /**
             * @description `refused`: the address led to an internal network.
             * @enum {string}
             */
            status: "succeeded" | "failed" | "refused";
        };
        WebhookDeliveryInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            attempted_at: string;
            duration_ms: number;
            /** @description `org.member.added`, …, or `webhook.test`. */
            event_type: string;
            /** Format: uuid */
            id: string;
            /**
             * Format: uuid
             * @description The `webhook-id` the endpoint was sent: the same on every attempt of a message.
             */
            message_id: string;
            /** @description The HTTP status answered; null when none came in time. */
            response_status: number | null;
            /**
             * @description `refused`: the address led to an internal network.
             * @enum {string}
             */
            status: "succeeded" | "failed" | "refused";
        };
        WebhookEndpoint: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** @description False once an administrator disabled it, or after it failed for WEBHOOK_DISABLE_AFTER_HOURS. */
            enabled: boolean;
            /** @description Event type names (docs/events.md), or `["*"]` for every one. */
            events: string[];
            /** @description Since when every attempt has failed; null while the last one succeeded (or none was made). */
            failing_since: string | null;
            /** Format: uuid */
            id: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
            url: string;
        };
        WebhookEndpointInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** @description False once an administrator disabled it, or after it failed for WEBHOOK_DISABLE_AFTER_HOURS. */
            enabled: boolean;
            /** @description Event type names (docs/events.md), or `["*"]` for every one. */
            events: string[];
            /** @description Since when every attempt has failed; null while the last one succeeded (or none was made). */
            failing_since: string | null;
            /** Format: uuid */
            id: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
            url: string;
        };
        WebhookEndpointRotated: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** @description False once an administrator disabled it, or after it failed for WEBHOOK_DISABLE_AFTER_HOURS. */
            enabled: boolean;
            /** @description Event type names (docs/events.md), or `["*"]` for every one. */
            events: string[];
            /** @description Since when every attempt has failed; null while the last one succeeded (or none was made). */
            failing_since: string | null;
            /** Format: uuid */
            id: string;
            /**
             * Format: date-time
             * @description Until then the replaced secret signs too: deliveries carry two signatures.
             */
            previous_secret_expires_at: string;
            /** @description `whsec_` and base64 of 32 random bytes, for Standard Webhooks libraries. Shown this once. */
            secret: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
            url: string;
        };
        WebhookEndpointRotatedInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** @description False once an administrator disabled it, or after it failed for WEBHOOK_DISABLE_AFTER_HOURS. */
            enabled: boolean;
            /** @description Event type names (docs/events.md), or `["*"]` for every one. */
            events: string[];
            /** @description Since when every attempt has failed; null while the last one succeeded (or none was made). */
            failing_since: string | null;
            /** Format: uuid */
            id: string;
            /**
             * Format: date-time
             * @description Until then the replaced secret signs too: deliveries carry two signatures.
             */
            previous_secret_expires_at: string;
            /** @description `whsec_` and base64 of 32 random bytes, for Standard Webhooks libraries. Shown this once. */
            secret: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
            url: string;
        };
        WebhookEndpointWithSecret: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** @description False once an administrator disabled it, or after it failed for WEBHOOK_DISABLE_AFTER_HOURS. */
            enabled: boolean;
            /** @description Event type names (docs/events.md), or `["*"]` for every one. */
            events: string[];
            /** @description Since when every attempt has failed; null while the last one succeeded (or none was made). */
            failing_since: string | null;
            /** Format: uuid */
            id: string;
            /** @description `whsec_` and base64 of 32 random bytes, for Standard Webhooks libraries. Shown this once. */
            secret: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
            url: string;
        };
        WebhookEndpointWithSecretInput: {
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            created_at: string;
            description: string;
            /** @description False once an administrator disabled it, or after it failed for WEBHOOK_DISABLE_AFTER_HOURS. */
            enabled: boolean;
            /** @description Event type names (docs/events.md), or `["*"]` for every one. */
            events: string[];
            /** @description Since when every attempt has failed; null while the last one succeeded (or none was made). */
            failing_since: string | null;
            /** Format: uuid */
            id: string;
            /** @description `whsec_` and base64 of 32 random bytes, for Standard Webhooks libraries. Shown this once. */
            secret: string;
            /**
             * Format: date-time
             * @description RFC 3339, UTC.
             */
            updated_at: string;
            url: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
