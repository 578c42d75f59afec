import type { Passkey } from '@latchkey/client';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api';
import { Field, Form, Notice, ProblemMessage, useAction } from '../components/form';
import { formatDate } from '../components/dates';
import { addPasskey, passkeysSupported } from '../passkeys';
import { useSession } from '../session';

/** docs/api.md, "Passkeys": add one on this device, name, rename and remove them. */
export function PasskeysSection() {
  const { refresh, withRecentProof } = useSession();
  const [passkeys, setPasskeys] = useState<Passkey[]>([]);
  const [name, setName] = useState('');
  const [added, setAdded] = useState<string | undefined>();
  const action = useAction();

  const load = async () => setPasskeys((await unwrap(api.GET('/v0/auth/passkeys'))).items);
  useEffect(() => {
    void action.run(load);
  }, []);
  const changed = async () => {
    await load();
    await refresh();
  };

  return (
    <section aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p>A passkey signs you in with this device's screen lock or a security key, without a password.</p>
      <ProblemMessage error={action.error} />
      {added ? <Notice>Passkey “{added}” added.</Notice> : null}
      <ul class="item-list" aria-label="Your passkeys">
        {passkeys.map((passkey) => (
          <PasskeyItem key={passkey.id} passkey={passkey} busy={action.busy} run={action.run} onChanged={changed} />
        ))}
      </ul>
      {passkeysSupported() ? (
        <Form
          submit="Add a passkey"
          busy={action.busy}
          label="Add a passkey"
          onSubmit={() =>
            void action.run(async () => {
              const passkey = await withRecentProof(() => addPasskey(name));
              setAdded(passkey.name);
              setName('');
              await changed();
            })
          }
        >
          <Field label="Name (optional)" name="name" value={name} onValue={setName} hint="Such as “Work laptop”." error={action.error} />
        </Form>
      ) : (
        <p>This browser cannot use passkeys.</p>
      )}
    </section>
  );
}

function PasskeyItem(props: {
  passkey: Passkey;
  busy: boolean;
  run: ReturnType<typeof useAction>['run'];
  onChanged: () => Promise<void>;
}) {
  const { withRecentProof } = useSession();
  const { passkey } = props;
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(passkey.name);
  const path = { params: { path: { id: passkey.id } } };
  return (
    <li>
      <strong>{passkey.name}</strong>
      <span class="meta">
        added {formatDate(passkey.created_at)}; {passkey.last_used_at ? `last used ${formatDate(passkey.last_used_at)}` : 'never used'}
        {passkey.backed_up ? '; synced' : ''}
      </span>
      {renaming ? (
        <Form
          submit="Save name"
          busy={props.busy}
          label={`Rename ${passkey.name}`}
          onSubmit={() =>
            void props.run(async () => {
              await unwrap(api.PATCH('/v0/auth/passkeys/{id}', { ...path, body: { name } }));
              setRenaming(false);
              await props.onChanged();
            })
          }
        >
          <Field label="New name" name={`name-${passkey.id}`} value={name} onValue={setName} required />
        </Form>
      ) : (
        <span class="button-row">
          <button type="button" class="secondary" onClick={() => setRenaming(true)}>
            Rename <span class="visually-hidden">{passkey.name}</span>
          </button>
          <button
            type="button"
            class="danger"
            disabled={props.busy}
            onClick={() =>
              void props.run(async () => {
                await withRecentProof(() => unwrap(api.DELETE('/v0/auth/passkeys/{id}', path)));
                await props.onChanged();
              })
            }
          >
            Remove <span class="visually-hidden">{passkey.name}</span>
          </button>
        </span>
      )}
    </li>
  );
}
