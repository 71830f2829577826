// The invitation mail: one template, rendered as plain text and as HTML (multipart/alternative).
// No remote images, no tracking, no links but the site's own activation page. The plain-text part
// carries the key alone on its own line, so it can be copied without picking at a sentence.
import { randomUUID } from 'node:crypto';
import type { OutgoingMail } from '../store/types';
import { escapeMarkup } from '../../shared/markup';

export const INVITATION_SUBJECT = 'Your OrgNote activation key';

/** A paragraph of the template: prose, the key, or a link. */
type Block = { text: string } | { key: string } | { link: string };

/**
 * True for an address a mail can go to exactly as it is stored: a plain local part (no quotes,
 * commas, semicolons, angle brackets, parentheses, colons or backslashes, which the waitlist's
 * "no whitespace" rule lets through) at a domain. nodemailer reads those characters as address
 * syntax, so 'evil,victim@x.org' would be mailed to victim@x.org.
 */
export function isMailable(address: string): boolean {
  return /^[^\s"(),:;<>@[\\\]]+@[^\s"(),:;<>@[\\\]]+\.[^\s"(),:;<>@[\\\]]+$/.test(address);
}

/** The activation page with the address already filled in. */
export function activationPageUrl(siteUrl: string, email: string): string {
  return `${siteUrl}/activate?email=${encodeURIComponent(email)}`;
}

function invitationBlocks(siteUrl: string, email: string, key: string): Block[] {
  return [
    { text: 'Hello,' },
    { text: 'Thank you for waiting: your free OrgNote subscription is ready. This is your activation key:' },
    { key },
    { text: 'Open the activation page (your address is already filled in) and enter the key:' },
    { link: activationPageUrl(siteUrl, email) },
    { text: `The key works for ${email} only. If you did not join the OrgNote waitlist, you can ignore this message.` },
    { text: 'OrgNote, notes in org-mode linked the Zettelkasten way' },
  ];
}

function asText(blocks: Block[]): string {
  return `${blocks.map((block) => ('text' in block ? block.text : 'key' in block ? block.key : block.link)).join('\n\n')}\n`;
}

function asHtml(blocks: Block[]): string {
  const paragraph = (block: Block): string => {
    if ('text' in block) return `<p>${escapeMarkup(block.text)}</p>`;
    if ('key' in block) return `<p style="font-family:monospace;font-size:1.25em;letter-spacing:0.05em"><strong>${escapeMarkup(block.key)}</strong></p>`;
    return `<p><a href="${escapeMarkup(block.link)}">${escapeMarkup(block.link)}</a></p>`;
  };
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    `<title>${escapeMarkup(INVITATION_SUBJECT)}</title></head>` +
    `<body style="font-family:sans-serif;line-height:1.5;color:#222">${blocks.map(paragraph).join('')}</body></html>`
  );
}

/** The whole message for one address and key, with a Message-ID at the site's own host. */
export function invitationMail(options: { siteUrl: string; from: string; to: string; key: string; date?: Date }): OutgoingMail {
  const { siteUrl, from, to, key, date = new Date() } = options;
  const blocks = invitationBlocks(siteUrl, to, key);
  return {
    from,
    to,
    subject: INVITATION_SUBJECT,
    text: asText(blocks),
    html: asHtml(blocks),
    messageId: `<${randomUUID()}@${new URL(siteUrl).hostname}>`,
    date: date.toISOString(),
  };
}
