import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { SignInFirst } from '../components/layout';
import { Page } from '../components/page';
import { navigate } from '../router';
import { useSession } from '../session';

/**
 * docs/oidc.md, "Device flow": a TV or a command-line tool shows a code; the
 * user enters it here (a link from the device fills it in, but the user
 * still sends it), then is shown what the device asks for and allows it
 * with a button of its own.
 */
export function DevicePage(props: { userCode: string; done: boolean; denied: boolean }) {
  const { user } = useSession();
  const [code, setCode] = useState(props.userCode);
  const action = useAction();
  if (props.done || props.denied) {
    return (
      <Page title={props.done ? 'Device signed in' : 'Device refused'}>
        <Notice>{props.done ? 'Your device is signed in. You can close this page.' : 'The device was not signed in.'}</Notice>
      </Page>
    );
  }
  if (user === undefined) return <p aria-busy="true">Loading…</p>;
  return (
    <Page title="Sign in a device">
      {user === null ? (
        <SignInFirst />
      ) : (
        <>
          <p>Enter the code your device shows.</p>
          <p class="meta">Only enter a code shown on a device in front of you. A code someone sent you would sign their device in to your account.</p>
          <ProblemMessage error={action.error} />
          <Form
            submit="Continue"
            busy={action.busy}
            label="Device code"
            onSubmit={() =>
              void action.run(async () => {
                const { uid } = await unwrap(api.POST('/v0/oidc/device/verify', { body: { user_code: code } }));
                navigate(`/oidc/interaction/${encodeURIComponent(uid)}`);
              })
            }
          >
            <Field label="Code" name="user_code" autoComplete="one-time-code" value={code} onValue={setCode} required error={action.error} />
          </Form>
        </>
      )}
    </Page>
  );
}
