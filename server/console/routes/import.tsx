// Importing a list from the console, through the same operation as `waitlist import`: an upload of
// at most IMPORT_MAX_BYTES is first read as a dry run, whose report is shown with a form to import
// it; that form takes the file again (no upload is kept anywhere between two requests, which may
// reach two replicas) and imports it only if it is the file the report was about. Larger files go
// through the CLI. The page also asks for the confirmation mails imported rows wait for, as
// `waitlist confirm --resend` does.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import { fieldsOf } from '../../http/body';
import { resendConfirmations, type ResendResult } from '../../waitlist/confirm-resend';
import { importList, type ImportReport, type ImportResult } from '../../waitlist/import';
import { FORMAT_NAMES, linesText, notCsvText, reportLines } from '../../waitlist/import-report';
import { BackToSignups, Hidden, PostForm } from '../layout';
import { CONSOLE_URLS } from '../paths';
import { actor, text } from '../request';
import type { ConsoleDeps, Page, RouteModule } from '../route';

/** The largest upload: about 200 000 rows of an export. Larger files go through the CLI. */
export const IMPORT_MAX_BYTES = 20 * 1024 * 1024;

/** What the file input is called in the upload's form. */
export const UPLOAD_FIELD = 'file';

/** The file's digest, carried by the report's form: the import is of the file the report read. */
const digestOf = (bytes: Buffer, unconfirmed: boolean) =>
  createHash('sha256')
    .update(bytes)
    .update(unconfirmed ? '\0unconfirmed' : '\0as-is')
    .digest('base64url');

// Views

function UploadFields({ unconfirmed }: { unconfirmed?: boolean }) {
  return (
    <>
      <div className="field">
        <label className="field-label" htmlFor="file">
          CSV file (at most {IMPORT_MAX_BYTES / 1024 / 1024} MB)
        </label>
        <input
          className="field-input"
          id="file"
          name={UPLOAD_FIELD}
          type="file"
          accept=".csv,text/csv"
          required
        />
      </div>
      <p>
        <label>
          <input type="checkbox" name="unconfirmed" value="1" defaultChecked={unconfirmed} /> Every
          row comes in unconfirmed, whatever the file says
        </label>
      </p>
    </>
  );
}

/** A form that uploads: multipart, with the session's token. */
function UploadForm({ csrf, children }: { csrf: string; children: React.ReactNode }) {
  return (
    <form method="post" action={CONSOLE_URLS.importList} encType="multipart/form-data">
      <input type="hidden" name="csrf" defaultValue={csrf} />
      {children}
    </form>
  );
}

export function ImportStart({ csrf, awaiting }: { csrf: string; awaiting: number }) {
  return (
    <>
      <h1>Import a list</h1>
      <p>
        This site&apos;s export, listmonk&apos;s subscriber export or one file of a Mailchimp
        audience export. Nobody is mailed; an address already on the list is left as it is. The file
        is checked first, and imported once you have seen what it holds. Larger files, and columns
        of other names: <code>waitlist import</code>.
      </p>
      <UploadForm csrf={csrf}>
        <Hidden name="step" value="check" />
        <UploadFields />
        <button type="submit" className="button button-primary">
          Check the file
        </button>
      </UploadForm>
      <h2>Confirmation mails</h2>
      <p>
        Imported and not confirmed yet: {awaiting}. They stay until they are mailed a confirmation;
        whoever does not follow its link is then erased when it expires.
      </p>
      <PostForm action={CONSOLE_URLS.importResend} csrf={csrf} className="console-search">
        <div className="field">
          <label className="field-label" htmlFor="email">
            One address (or none: all of them)
          </label>
          <input className="field-input" id="email" name="email" type="email" />
        </div>
        <button type="submit" className="button button-secondary">
          Mail a confirmation
        </button>
      </PostForm>
      <BackToSignups />
    </>
  );
}

function ReportTable({ report }: { report: ImportReport }) {
  return (
    <table className="console-table">
      <caption>
        {FORMAT_NAMES[report.format]}, {report.rows} row(s)
      </caption>
      <thead>
        <tr>
          <th scope="col">Rows</th>
          <th scope="col">How many</th>
          <th scope="col">Lines</th>
        </tr>
      </thead>
      <tbody>
        {reportLines(report).map(({ label, tally }) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{tally.count}</td>
            <td>{linesText(tally)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

interface CheckedProps {
  report: ImportReport;
  csrf: string;
  seen: string;
  unconfirmed: boolean;
  /** Why the check is shown again. */
  changed?: string;
}

/** The dry run's report, and the form that imports the same file. */
export function ImportChecked({ report, csrf, seen, unconfirmed, changed }: CheckedProps) {
  return (
    <>
      <h1>What the file holds</h1>
      {changed && <p role="alert">{changed}</p>}
      <ReportTable report={report} />
      <p>Nothing is stored yet. To import, choose the same file again:</p>
      <UploadForm csrf={csrf}>
        <Hidden name="step" value="import" />
        <Hidden name="seen" value={seen} />
        <UploadFields unconfirmed={unconfirmed} />
        <button type="submit" className="button button-primary">
          Import {report.added.count} row(s)
        </button>
      </UploadForm>
      <BackToSignups />
    </>
  );
}

function Imported({ report }: { report: ImportReport }) {
  return (
    <>
      <h1>Imported {report.added.count} row(s)</h1>
      <ReportTable report={report} />
      <p>
        <a href={CONSOLE_URLS.importList}>Import another file</a>
      </p>
      <BackToSignups />
    </>
  );
}

function Notice({ heading, why }: { heading: string; why: string }) {
  return (
    <>
      <h1>{heading}</h1>
      <p>{why}</p>
      <p>
        <a href={CONSOLE_URLS.importList}>Back to the import</a>
      </p>
    </>
  );
}

const RESEND_SAID: Record<Extract<ResendResult, { kind: 'one' }>['outcome'], string> = {
  due: 'is due a confirmation mail: the mail goes out within seconds.',
  confirmed: 'is confirmed already: nothing to send.',
  undeliverable: 'is undeliverable: no mail goes to it.',
  'not-on-list': 'is not on the waitlist.',
};

const REFUSED = {
  'backend-owns-signups': 'BACKEND_URL is set: signups live in the backend, so lists go there.',
  'no-site-url': 'A confirmation mail needs SITE_URL, the public address of this site.',
} as const;

// Routes

/** A page of one heading and one sentence: a refusal, or what a resend did. */
const notice = (status: number, heading: string, why: string): Page => ({
  title: 'Import',
  view: <Notice heading={heading} why={why} />,
  status,
});

/** The upload's file, and the form's choices. */
function uploadOf(req: Request) {
  const fields = fieldsOf(req);
  return {
    file: req.file,
    step: text(fields.step),
    seen: text(fields.seen),
    unconfirmed: text(fields.unconfirmed) === '1',
  };
}

/** The page after an import or its dry run, or the refusal in its stead. */
function answer(result: ImportResult, view: (report: ImportReport) => Page): Page {
  switch (result.kind) {
    case 'refused':
      return notice(409, 'Not imported', REFUSED[result.reason]);
    case 'not-csv':
      return notice(
        400,
        'Not a CSV file this import reads',
        `Nothing was stored: ${notCsvText(result.why)}.`,
      );
    case 'done':
      return view(result.report);
  }
}

async function upload(deps: ConsoleDeps, req: Request, res: Response): Promise<Page> {
  const { store, config } = deps;
  const { file, step, seen, unconfirmed } = uploadOf(req);
  if (!file) return notice(400, 'No file', 'Choose a CSV file to import.');
  const { csrf } = res.locals.consoleSession;
  const digest = digestOf(file.buffer, unconfirmed);
  const run = (dryRun: boolean) =>
    importList(
      { store, config },
      {
        source: Readable.from([file.buffer]),
        fileName: file.originalname,
        unconfirmed,
        dryRun,
        actor: actor(res),
      },
    );
  const checked = (report: ImportReport, changed?: string): Page => ({
    title: 'Import',
    view: (
      <ImportChecked
        report={report}
        csrf={csrf}
        seen={digest}
        unconfirmed={unconfirmed}
        changed={changed}
      />
    ),
    status: changed ? 409 : 200,
  });
  if (step !== 'import') return answer(await run(true), (report) => checked(report));
  // The operator approved the report of one file: another one (or other choices) is checked
  // again and shown, never imported unseen.
  if (seen !== digest)
    return answer(await run(true), (report) =>
      checked(report, 'This is not the file checked before; nothing was imported. Its report:'),
    );
  return answer(await run(false), (report) => ({
    title: 'Import',
    view: <Imported report={report} />,
  }));
}

export const importRoutes: RouteModule = (deps) => {
  const { store, config } = deps;
  return [
    {
      method: 'get',
      name: 'importList',
      handle: async (_req, res) => ({
        title: 'Import',
        view: (
          <ImportStart
            csrf={res.locals.consoleSession.csrf}
            awaiting={await store.imports.awaitingConfirmation()}
          />
        ),
      }),
    },
    {
      method: 'post',
      name: 'importList',
      upload: {
        field: UPLOAD_FIELD,
        maxBytes: IMPORT_MAX_BYTES,
        tooLarge: notice(
          413,
          'The file is too large',
          `The console takes files of up to ${IMPORT_MAX_BYTES / 1024 / 1024} MB; nothing was ` +
            'stored. Import larger files with the CLI: waitlist import <file.csv>.',
        ),
      },
      handle: (req, res) => upload(deps, req, res),
    },
    {
      method: 'post',
      name: 'importResend',
      handle: async (req, res) => {
        const email = text(fieldsOf(req).email).trim();
        const result = await resendConfirmations(
          { store, config },
          { email: email === '' ? undefined : email, actor: actor(res) },
        );
        if (result.kind === 'refused')
          return notice(409, 'No confirmation mailed', REFUSED[result.reason]);
        const said =
          result.kind === 'all'
            ? `${result.due} imported address(es) are due a confirmation mail: the mail goes ` +
              'out within minutes.'
            : `${result.email} ${RESEND_SAID[result.outcome]}`;
        const status = result.kind === 'one' && result.outcome === 'not-on-list' ? 404 : 200;
        return notice(status, 'Confirmation mails', said);
      },
    },
  ];
};
