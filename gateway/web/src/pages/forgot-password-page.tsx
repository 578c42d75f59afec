import { useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { Page } from '../components/page';

/** docs/api.md, "Authentication": the answer is the same whether or not the address has an account. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const action = useAction();
  return (
    <Page title="Reset your password">
      {sent ? (
        <Notice>If {email} has an account, a link to choose a new password is on its way.</Notice>
      ) : (
        <>
          <ProblemMessage error={action.error} />
          <Form
            submit="Send link"
            busy={action.busy}
            onSubmit={() =>
              void action.run(async () => {
                await unwrap(api.POST('/v0/auth/forgot-password', { body: { email } }));
                setSent(true);
              })
            }
          >
            <Field label="Email" name="email" type="email" autoComplete="email" value={email} onValue={setEmail} required error={action.error} />
          </Form>
        </>
      )}
    </Page>
  );
}
