/**
 * Whether an error means a backing service (PostgreSQL, NATS, S3, ...) is
 * unreachable rather than that our code is wrong. Such failures answer
 * `service:unavailable` (503) so that clients retry instead of reporting bugs.
 */
export function isDependencyOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN'].includes(code)) {
      return true;
    }
    // PostgreSQL: class 08 is connection exceptions, class 53 a server out of resources (53300: too many
    // connections, as a busy PgBouncer or server answers), 57P0x the server shutting down or restarting.
    // 57014 is a statement cancelled by its timeout: the request's budget ran out while the database was slow.
    // Class 40 is a transaction the server rolled back for another's sake (40P01 a deadlock, 40001 a serialization
    // failure): nothing was written, and the same request asked again succeeds.
    if (/^08/.test(code) || /^53/.test(code) || /^57P0/.test(code) || code === '57014' || /^40/.test(code)) return true;
    // nats.js connection and timeout errors.
    if (['CONNECTION_REFUSED', 'CONNECTION_CLOSED', 'DISCONNECT', 'TIMEOUT', '503'].includes(code)) return true;
  }
  // ioredis, with its offline queue off, fails at once while disconnected, and with a command timeout when Redis hangs.
  if (error.name === 'MaxRetriesPerRequestError') return true;
  // Redis answering that it cannot write now: full under `noeviction`, loading its data, a replica
  // during failover (docs/operations.md, "Redis memory").
  if (error.name === 'ReplyError' && /^(OOM|LOADING|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN) /.test(error.message)) return true;
  // A Redis Cluster none of whose nodes answers, or whose slots are moving between them.
  if (error.name === 'ClusterAllFailedError' || /^Too many Cluster redirections/.test(error.message)) return true;
  if (
    // pg's own bound on a statement outside a transaction (packages/db's createPool), and a connection the server ended.
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Stream isn't writeable|Connection is closed|Command timed out|Query read timeout|Client was closed and is not queryable/i.test(
      error.message,
    )
  ) {
    return true;
  }
  return error.cause !== undefined && error.cause !== error && isDependencyOutage(error.cause);
}
