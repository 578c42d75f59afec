import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, nkeyAuthenticator, type ConnectionOptions, type NatsConnection } from 'nats';
import { inboxPrefixOf } from './bus-permissions';

/** How a unit reaches NATS (packages/config's natsVariables). */
export interface BusSettings {
  /** One server or several of one cluster; the client fails over between them. */
  readonly NATS_URL: string | readonly string[];
  /**
   * The unit's own NATS user (its name), which also names its reply inbox;
   * unset = anonymous, as on a developer's machine.
   */
  readonly NATS_USER?: string | undefined;
  readonly NATS_PASSWORD?: string | undefined;
  readonly NATS_CREDS_FILE?: string | undefined;
  readonly NATS_NKEY_SEED_FILE?: string | undefined;
  readonly NATS_TLS_CA_FILE?: string | undefined;
  /** Replicas of the streams and consumers the unit creates; default 1. */
  readonly NATS_STREAM_REPLICAS?: number | undefined;
}

/**
 * The credentials part of the connection options. Files are read at every
 * (re)connection, so a rotated credentials file is used without a restart.
 */
function authentication(settings: BusSettings): Pick<ConnectionOptions, 'user' | 'pass' | 'authenticator'> {
  const { NATS_USER: user, NATS_PASSWORD: password, NATS_CREDS_FILE: creds, NATS_NKEY_SEED_FILE: seed } = settings;
  const kinds = [password, creds, seed].filter((value) => value !== undefined).length;
  if (kinds > 1) throw new Error('NATS_PASSWORD, NATS_CREDS_FILE and NATS_NKEY_SEED_FILE are alternatives: set one');
  if (password !== undefined) {
    if (user === undefined) throw new Error('NATS_USER and NATS_PASSWORD must be set together');
    return { user, pass: password };
  }
  if (creds !== undefined) return { authenticator: credsAuthenticator(() => readFileSync(creds)) };
  if (seed !== undefined) return { authenticator: nkeyAuthenticator(() => new TextEncoder().encode(readFileSync(seed, 'utf8').trim())) };
  if (user !== undefined) throw new Error('NATS_USER needs NATS_PASSWORD, NATS_CREDS_FILE or NATS_NKEY_SEED_FILE');
  return {};
}

/**
 * Connects with the unit's credentials, if any, and its own inbox prefix,
 * which its permissions require (the unit's name, NATS_USER, names it also
 * with a credentials file or an NKey).
 */
export async function connectToBus(
  settings: BusSettings,
  options: Omit<ConnectionOptions, 'servers' | 'user' | 'pass' | 'inboxPrefix' | 'authenticator' | 'tls'>,
): Promise<NatsConnection> {
  const auth = authentication(settings);
  const user = settings.NATS_USER;
  return connect({
    ...options,
    servers: typeof settings.NATS_URL === 'string' ? settings.NATS_URL : [...settings.NATS_URL],
    ...auth,
    ...(user === undefined ? {} : { inboxPrefix: inboxPrefixOf(user) }),
    ...(settings.NATS_TLS_CA_FILE === undefined ? {} : { tls: { caFile: settings.NATS_TLS_CA_FILE } }),
  });
}
