import type pg from 'pg';
import type { Logger } from '@latchkey/telemetry';
import { startPeriodicTask, type PeriodicTask } from '@latchkey/runtime';

/**
 * How long a completed job's id is kept. The jobs stream drops messages
 * after 7 days (max_age in @latchkey/jobs-contract), so no redelivery can
 * come later than that.
 */
export const COMPLETED_JOB_RETENTION_DAYS = 7;

const CLEANUP_INTERVAL_MS = 60 * 60 * 1_000;

export async function isJobCompleted(pool: pg.Pool, jobId: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM jobs.completed_jobs WHERE job_id = $1', [jobId]);
  return (rowCount ?? 0) > 0;
}

export async function recordCompletedJob(pool: pg.Pool, jobId: string): Promise<void> {
  await pool.query('INSERT INTO jobs.completed_jobs (job_id) VALUES ($1) ON CONFLICT (job_id) DO NOTHING', [jobId]);
}

/** Deletes ids older than the retention; returns how many went. */
export async function deleteExpiredCompletedJobs(pool: pg.Pool): Promise<number> {
  const { rowCount } = await pool.query(
    'DELETE FROM jobs.completed_jobs WHERE completed_at < now() - make_interval(days => $1)',
    [COMPLETED_JOB_RETENTION_DAYS],
  );
  return rowCount ?? 0;
}

/**
 * Runs the cleanup now and then hourly. Every replica runs it; the delete
 * is cheap on the completed_at index and harmless when run twice.
 */
export function startCompletedJobsCleanup(pool: pg.Pool, logger: Logger): PeriodicTask {
  return startPeriodicTask(
    {
      description: 'deleting expired completed-job ids',
      intervalMs: CLEANUP_INTERVAL_MS,
      async run() {
        const deleted = await deleteExpiredCompletedJobs(pool);
        if (deleted > 0) logger.info({ deleted }, 'expired completed-job ids deleted');
      },
    },
    logger,
  );
}
