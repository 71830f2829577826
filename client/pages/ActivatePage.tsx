// '/activate' child route: the activation form (first version; behaviour in the pages issue).
export function ActivatePage() {
  return (
    <form className="form-card">
      <title>OrgNote · Activate your subscription</title>
      <h2 className="form-title">Enter your activation key</h2>
      <label className="field">
        <span className="field-label">Email</span>
        <input name="email" type="email" autoComplete="email" />
      </label>
      <label className="field">
        <span className="field-label">Activation key</span>
        <input name="token" autoComplete="off" />
      </label>
      <button type="submit" className="button button-primary">Activate</button>
    </form>
  );
}
