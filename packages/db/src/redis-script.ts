import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client';

/** The reply is `unknown`: Lua can answer anything, so each caller checks or casts its own. */
export type RedisScript = (keys: readonly string[], args?: readonly (string | number)[]) => Promise<unknown>;

/** Spelled out here because ioredis cannot type a command defined at run time. */
type DefinedCommand = (this: RedisClient, keyCount: number, ...keysThenArgs: (string | number)[]) => Promise<unknown>;

/**
 * A Lua script that ioredis sends as EVALSHA, so a call carries a 40-character
 * hash rather than the script's text; the text goes only on a connection's
 * first call and again after NOSCRIPT (Redis restarted, failed over or
 * flushed its scripts), so no SCRIPT LOAD is needed beforehand.
 *
 * The command is named after the script's hash, not chosen by the caller:
 * the parts of a service share one client, where two scripts under one name
 * would silently replace each other; defining the same script twice is harmless.
 */
export function defineRedisScript(redis: RedisClient, lua: string): RedisScript {
  const name = `script_${createHash('sha1').update(lua).digest('hex')}`;
  redis.defineCommand(name, { lua });
  const command = (redis as unknown as Record<string, unknown>)[name] as DefinedCommand;
  return (keys, args = []) => command.call(redis, keys.length, ...keys, ...args);
}
