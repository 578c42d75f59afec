import type { ChainableCommander } from 'ioredis';

/**
 * Runs a MULTI and fails with the first command's error: ioredis resolves a
 * transaction even when a command in it failed.
 */
export async function execTransaction(transaction: ChainableCommander): Promise<unknown[]> {
  const replies = await transaction.exec();
  if (replies === null) throw new Error('redis transaction was aborted');
  return replies.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}
