import { connect, type ConnectionOptions, type NatsConnection } from 'nats';
import { inboxPrefixOf } from './bus-permissions';

/** How a unit reaches NATS (packages/config's backingServices). */
export interface BusSettings {
  readonly NATS_URL: string;
  /** The unit's own NATS user (its name); unset = no credentials, as on a developer's machine. */
  readonly NATS_USER?: string | undefined;
  readonly NATS_PASSWORD?: string | undefined;
}

/** Connects with the unit's credentials, if any, and its own inbox prefix, which its permissions require. */
export function connectToBus(
  settings: BusSettings,
  options: Omit<ConnectionOptions, 'servers' | 'user' | 'pass' | 'inboxPrefix'>,
): Promise<NatsConnection> {
  const user = settings.NATS_USER;
  if ((user === undefined) !== (settings.NATS_PASSWORD === undefined)) {
    return Promise.reject(new Error('NATS_USER and NATS_PASSWORD must be set together'));
  }
  return connect({
    ...options,
    servers: settings.NATS_URL,
    ...(user === undefined ? {} : { user, pass: settings.NATS_PASSWORD, inboxPrefix: inboxPrefixOf(user) }),
  });
}
