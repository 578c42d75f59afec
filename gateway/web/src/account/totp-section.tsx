import type { paths } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, isApiError, unwrap } from '../api';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { useSession } from '../session';

type TotpStatus = paths['/v0/auth/totp/status']['get']['responses'][200]['content']['application/json'];
type Setup = paths['/v0/auth/totp/setup']['post']['responses'][200]['content']['application/json'];

/** docs/api.md, "Second factor (TOTP)": set up with the QR code, see the backup codes once, regenerate, turn off. */
export function TotpSection() {
  const { refresh, withRecentProof, confirmIdentity } = useSession();
  const [status, setStatus] = useState<TotpStatus | undefined>();
  const [setup, setSetup] = useState<Setup | undefined>();
  const [codes, setCodes] = useState<string[] | undefined>();
  const [code, setCode] = useState('');
  /** Set once a confirmation spent the code typed for turning TOTP off. */
  const [nextCode, setNextCode] = useState(false);
  const action = useAction();

  const load = () => unwrap(api.GET('/v0/auth/totp/status')).then(setStatus);
  useEffect(() => {
    void action.run(load);
  }, []);

  const done = async (backupCodes?: string[]) => {
    setCodes(backupCodes);
    setSetup(undefined);
    setCode('');
    setNextCode(false);
    await load();
    await refresh();
  };

  return (
    <section aria-labelledby="totp-title">
      <h2 id="totp-title">Two-factor authentication</h2>
      <ProblemMessage error={action.error} />
      {nextCode ? <Notice>Confirmed. A code works only once: enter the next code your app shows, then turn off again.</Notice> : null}
      {codes ? (
        <div class="backup-codes">
          <Notice>Save these backup codes somewhere safe. Each works once, and they are not shown again.</Notice>
          <ul aria-label="Backup codes">
            {codes.map((backupCode) => (
              <li key={backupCode}>
                <code>{backupCode}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {status === undefined ? null : setup ? (
        <>
          <p>Scan this code with your authenticator app, or enter the key by hand, then type the code it shows.</p>
          <img src={setup.qr_code} alt="QR code of the authenticator key" width={200} height={200} />
          <p>
            Key: <code class="secret">{setup.secret}</code>
          </p>
          <Form
            submit="Turn on"
            busy={action.busy}
            label="Turn on two-factor authentication"
            onSubmit={() =>
              void action.run(async () => {
                const { backup_codes } = await withRecentProof(() =>
                  unwrap(api.POST('/v0/auth/totp/enable', { body: { setup_token: setup.setup_token, code: code.trim() } })),
                );
                await done(backup_codes);
              })
            }
          >
            <Field label="Code from the app" name="code" inputMode="numeric" autoComplete="one-time-code" value={code} onValue={setCode} required error={action.error} />
          </Form>
        </>
      ) : status.enabled ? (
        <>
          <p>
            On. Backup codes left: <strong>{status.backup_codes_remaining}</strong>.
          </p>
          <Form
            submit="New backup codes"
            busy={action.busy}
            label="Replace the backup codes"
            onSubmit={() =>
              void action.run(async () => done((await unwrap(api.POST('/v0/auth/totp/backup-codes/regenerate', { body: { code: code.trim() } }))).backup_codes))
            }
          >
            <Field label="Code from the app" name="code" inputMode="numeric" autoComplete="one-time-code" value={code} onValue={setCode} required error={action.error} />
          </Form>
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () => {
                try {
                  await unwrap(api.POST('/v0/auth/totp/disable', { body: { code: code.trim() } }));
                } catch (error) {
                  if (!isApiError(error, 'auth:reauthentication_required')) throw error;
                  // The confirmation spends a code, and a code works once: the next one turns TOTP off.
                  await confirmIdentity();
                  setCode('');
                  setNextCode(true);
                  return;
                }
                await done();
              })
            }
          >
            Turn off (with the code above)
          </button>
        </>
      ) : (
        <>
          <p>Off. With it on, signing in with a password also asks for a code from an authenticator app.</p>
          <button type="button" disabled={action.busy} onClick={() => void action.run(async () => setSetup(await withRecentProof(() => unwrap(api.POST('/v0/auth/totp/setup')))))}>
            Set up
          </button>
        </>
      )}
    </section>
  );
}
