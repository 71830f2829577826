// The console's one table shape: every cell names its column (the phone layout shows it as the
// cell's label), text is escaped, and times read to the minute with the exact value kept.
import { renderToStaticMarkup } from 'react-dom/server';
import { ConsoleTable, Timestamp, StateLabel } from '../../../server/console/table';

it('labels each cell with its column and says so when there is no row', () => {
  const columns = ['Address', 'State'];
  const rows = [{ key: 1, cells: ['a@example.org', <StateLabel key="state">invited</StateLabel>] }];
  const html = renderToStaticMarkup(
    <ConsoleTable caption="People" columns={columns} rows={rows} empty="Nobody." />,
  );
  expect(html).toContain('<caption>People</caption>');
  expect(html).toContain('<th scope="col">Address</th><th scope="col">State</th>');
  expect(html).toContain(
    '<tr><td data-label="Address">a@example.org</td><td data-label="State"><span class="console-word">invited</span></td></tr>',
  );
  const empty = renderToStaticMarkup(
    <ConsoleTable caption="People" columns={columns} rows={[]} empty="Nobody." />,
  );
  expect(empty).toContain('<td colSpan="2">Nobody.</td>');
});

it('shows a stored time to the minute in UTC and keeps the exact one for machines', () => {
  expect(renderToStaticMarkup(<Timestamp iso="2026-11-25T09:35:39.430Z" />)).toBe(
    '<time dateTime="2026-11-25T09:35:39.430Z">2026-11-25 09:35</time>',
  );
  expect(renderToStaticMarkup(<Timestamp iso={null} />)).toBe('');
  expect(renderToStaticMarkup(<StateLabel>{'<b>'}</StateLabel>)).toBe(
    '<span class="console-word">&lt;b&gt;</span>',
  );
});
