// '/' child route: the waitlist form (first version; behaviour in the pages issue).
export function WaitlistPage() {
  return (
    <form className="form-card" method="post" encType="multipart/form-data">
      <title>OrgNote · Join the waitlist</title>
      <h2 className="form-title">Join wait list</h2>
      <label className="field">
        <span className="field-label">Email</span>
        <input name="email" type="email" autoComplete="email" />
      </label>
      <label className="field">
        <span className="field-label">About me (or github profile)</span>
        <textarea name="description" rows={3} />
      </label>
      <button type="submit" className="button button-primary">Join</button>
    </form>
  );
}
