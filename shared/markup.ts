// Text placed into HTML or XML we write by hand (the sitemap, the form error page, the invitation
// mail): the five characters that could end a text node or an attribute value, escaped. Here, not
// in server/pages, so the mail does not depend on the pages.
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}
