// 'Everything is plain text' (docs/product.md §1): a sample note in real org-mode syntax.
const SAMPLE_NOTE = `:PROPERTIES:
:ID:       5f1c2a9e-7b3d-4e8a-9c61-2d4f8b0a6e13
:END:
#+TITLE: Zettelkasten in org-mode
#+FILETAGS: :zettelkasten:orgnote:

* Why plain text
Notes stay yours: readable in any editor, diffable, greppable.
See [[id:9a7e4c2b-1f3d-4a5b-8c6d-0e2f4a6b8c1d][Linking notes]] for the next step.

** TODO Sync this note with Emacs
* Literate programming
#+BEGIN_SRC javascript
const notes = ['idea', 'link', 'insight'];
console.log(notes.join(' -> '));
#+END_SRC`;

export function PlainTextDemo() {
  return (
    <section className="plain-text" aria-labelledby="plain-text-title">
      <h2 id="plain-text-title" className="section-title">
        Everything is plain text
      </h2>
      {/* Focusable so the keyboard can scroll it sideways; a named region, since HTML allows no
          aria-label on a plain <pre>. */}
      <pre className="org-sample" tabIndex={0} role="region" aria-label="Sample org-mode note">
        <code>{SAMPLE_NOTE}</code>
      </pre>
    </section>
  );
}
