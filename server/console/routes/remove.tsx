// Removing a signup from the console, through the same operation as `waitlist remove`: the row's
// Remove button asks first (a POST, though it only asks: as a GET the address would be in a URL
// the proxy logs), and the confirmation's button removes.
import { fieldsOf } from '../../http/body';
import { remove } from '../../waitlist/remove';
import { BackToSignups, Hidden, PostForm } from '../layout';
import { CONSOLE_URLS } from '../paths';
import { audit, text } from '../request';
import type { RouteModule } from '../route';

// Views

/** The confirmation step of Remove: what goes, and one button that posts. */
export function RemoveConfirmation({ email, csrf }: { email: string; csrf: string }) {
  return (
    <>
      <h1>Remove {email}?</h1>
      <p>
        This erases the signup, its activation keys, its mail and any outbox item, as{' '}
        <code>waitlist remove</code> does. It cannot be undone.
      </p>
      <PostForm action={CONSOLE_URLS.remove} csrf={csrf}>
        <Hidden name="email" value={email} />
        <button type="submit" className="button button-primary">
          Remove {email}
        </button>
      </PostForm>
      <BackToSignups>Keep it</BackToSignups>
    </>
  );
}

function Removed({ address, count }: { address: string; count: number }) {
  return (
    <>
      <h1>{count ? `Removed ${address}` : `Nothing stored for ${address}`}</h1>
      <BackToSignups />
    </>
  );
}

// Routes: the question, then the removal.

export const removeRoutes: RouteModule = ({ store, config }) => [
  {
    method: 'post',
    name: 'removeConfirm',
    handle: (req, res) => ({
      title: 'Remove',
      view: (
        <RemoveConfirmation
          email={text(fieldsOf(req).email)}
          csrf={res.locals.consoleSession.csrf}
        />
      ),
    }),
  },
  {
    method: 'post',
    name: 'remove',
    handle: async (req, res) => {
      const address = text(fieldsOf(req).email);
      const removed = await remove({ store, config }, address);
      const count = removed.kind === 'removed' && removed.signup ? 1 : 0;
      await audit(store, res, 'remove', count);
      return { title: 'Remove', view: <Removed address={address} count={count} /> };
    },
  },
];
