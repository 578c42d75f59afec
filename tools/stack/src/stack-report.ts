import path from 'node:path';
import type { BackingServiceCheck } from './backing-services';
import type { RunningStack } from './launch-stack';
import type { UnitPorts } from './port-layout';
import type { StackEvent } from './stack-events';
import { describeExit } from './unit-process';

/**
 * What `pnpm stack` prints: one line per step a developer waits for, the
 * links of every mail, and the last output of a unit that died.
 */

const indent = (lines: readonly string[], by = '    '): string => lines.map((line) => `${by}${line}`).join('\n');

/** A path relative to the working directory when it is inside it, for shorter lines. */
export function displayPath(target: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, target);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? target : relative;
}

/** A URL without its password, which DATABASE_URL and REDIS_URL may carry. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password === '') return value;
    url.password = '***';
    return url.toString();
  } catch {
    return value;
  }
}

function formatPorts(ports: UnitPorts): string {
  return Object.entries(ports)
    .map(([variable, port]) => `${variable}=${port}`)
    .join(' ');
}

/** The line(s) for one event, or undefined for events the summary covers. */
export function formatStackEvent(event: StackEvent): string | undefined {
  switch (event.type) {
    case 'database-created':
      return `created database ${event.database}`;
    case 'mail-catcher-started':
    case 's3-started':
      return undefined;
    case 'migrating':
      return `migrating ${event.unit}`;
    case 'migrated':
      return undefined;
    case 'starting':
      return `starting ${event.unit} (${[`pid ${event.pid ?? '?'}`, formatPorts(event.ports)]
        .filter((part) => part !== '')
        .join(', ')})`;
    case 'ready':
      return `ready    ${event.unit}${event.url ? ` at ${event.url}` : ''} (${(event.elapsedMs / 1000).toFixed(1)} s)`;
    case 'exited':
      // Before ready, launchStack rejects with the same lines in its error.
      if (event.phase === 'starting') return `${event.unit} ${describeExit(event.exit)} before it was ready`;
      return [
        `${event.unit} ${describeExit(event.exit)}; its last output:`,
        event.lastLines.length > 0 ? indent(event.lastLines) : '    (none)',
      ].join('\n');
    case 'stopped':
      return `stopped  ${event.unit} (${describeExit(event.exit)})`;
    case 'mail':
      return [
        `mail to ${event.mail.to.join(', ')}: ${event.mail.subject}`,
        ...event.mail.links.map((link) => `    ${link}`),
        `    saved as ${displayPath(event.mail.file)}`,
      ].join('\n');
    case 'mail-error':
      return `mail catcher: ${event.message}`;
  }
}

/** Where everything is, printed once every unit is ready. */
export function formatStackSummary(stack: RunningStack, logDir: string): string {
  const rows: [string, string][] = [
    ['gateway', stack.processes.has('gateway') ? stack.gatewayUrl : 'not started (see --units)'],
    // Mail links point at PUBLIC_APP_URL; say so when that is not this gateway.
    ...(stack.env.PUBLIC_APP_URL === stack.gatewayUrl
      ? []
      : [['links', stack.env.PUBLIC_APP_URL ?? ''] as [string, string]]),
    ['database', redactUrl(stack.env.DATABASE_URL ?? '')],
    [
      'mail',
      stack.smtp
        ? `${stack.smtp.url}, saved under ${displayPath(stack.smtp.directory)}`
        : `${redactUrl(stack.env.SMTP_URL ?? '')} (SMTP_URL)`,
    ],
    [
      's3',
      stack.s3
        ? `${stack.s3.endpoint}, bucket ${stack.s3.bucket}, kept under ${displayPath(stack.s3.directory)}`
        : `${stack.env.S3_ENDPOINT ?? ''} (S3_ENDPOINT)`,
    ],
    ['logs', `${displayPath(logDir)}/<unit>.log`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    '',
    `Latchkey is running (${[...stack.processes.keys()].join(', ')})`,
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    'Ctrl-C stops everything.',
    '',
  ].join('\n');
}

/** Which backing service is down and how to start it on Debian. */
export function formatUnreachableHint(unreachable: readonly BackingServiceCheck[]): string {
  return [
    'Not reachable, so nothing was started:',
    ...unreachable.map((service) =>
      [
        `  ${service.name} at ${service.host}:${service.port} (${service.variable}). Start the local one with:`,
        `    ${service.startCommand}`,
      ].join('\n'),
    ),
    `Or point ${unreachable.map((service) => service.variable).join(' / ')} at one that runs.`,
  ].join('\n');
}
