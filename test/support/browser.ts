import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it); Playwright's own browser download does not work on these machines. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where each test leaves a screenshot of every page it saw. */
export const SCREENSHOT_DIR = path.resolve(__dirname, '../../.data/test-output/browser');

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Chromium with `host` resolved to the gateway on `port`, so that the app
 * runs at its PUBLIC_APP_URL (`http://app.localhost`): the origin the
 * gateway allows, the RP ID of passkeys and the host of mailed links. A
 * `*.localhost` host is a secure context, where WebAuthn works over HTTP.
 */
export function launchBrowser(host: string, port: number): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [`--host-resolver-rules=MAP ${host}:80 127.0.0.1:${port}`, '--no-sandbox'],
  });
}

/** A virtual authenticator, and what a test may do to it behind the page's back. */
export interface VirtualAuthenticator {
  /**
   * Sets the signature counter of every credential it holds, as a copy of
   * its keys taken earlier would report it.
   */
  setSignCounts(signCount: number): Promise<void>;
}

/**
 * A platform authenticator holding discoverable credentials with user
 * verification, as a phone or a laptop with a screen lock, through
 * Chromium's DevTools WebAuthn domain.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<VirtualAuthenticator> {
  const session = await context.newCDPSession(page);
  await session.send('WebAuthn.enable');
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    async setSignCounts(signCount) {
      const { credentials } = await session.send('WebAuthn.getCredentials', { authenticatorId });
      for (const credential of credentials) {
        await session.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
        await session.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount } });
      }
    },
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Saves a screenshot of the page and answers the accessibility violations
 * axe-core finds that are serious or critical. axe is evaluated through the
 * DevTools protocol, which the page's Content-Security-Policy does not
 * govern, so the policy under test stays as strict as in production.
 */
export async function inspectPage(page: Page, name: string): Promise<string[]> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((result) => result.violations)');
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${name}: ${violation.id} (${violation.help}) at ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
}
