// Installing a registry listing: the version (the listing's unless another is chosen), its install
// form, the way to run it when there are several, the values that way asks for and the local
// name; the shell then shows the native trust dialog.
import type { FormEvent } from "react";
import { useEffect, useMemo, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { InstallForm } from "../../bindings/InstallForm";
import type { RegistryListing } from "../../bindings/RegistryListing";
import type { RegistryRef } from "../../bindings/RegistryRef";
import type { RegistryStatus } from "../../bindings/RegistryStatus";
import { ErrorBanner } from "../../components/error-banner";
import { GalleryDialog, InstallFooter, useInstall } from "./dialog";
import type { Values } from "./install-fields";
import { filled, initialValues, InstallFields } from "./install-fields";
import { Choice } from "../../components/choice";

export function InstallDialog(props: {
  backend: Backend;
  server: RegistryRef;
  /** The listing's shown title, until its form has loaded. */
  title: string;
  onInstalled: (name: string) => void;
  onClose: () => void;
}) {
  const { backend, server } = props;
  // The version chosen in the dialog (null: the one `server` names, the latest when it names none).
  const [chosen, setChosen] = useState<string | null>(null);
  const version = chosen ?? server.version;
  const ref = useMemo(() => ({ ...server, version }), [server, version]);
  // The form loaded, or why it could not be, with the version it is of.
  const [loaded, setLoaded] = useState<{ version: string | null; form: InstallForm | null; error: string | null } | null>(null);
  useEffect(() => {
    let live = true;
    backend.installForm(ref).then(
      (form) => live && setLoaded({ version: ref.version, form, error: null }),
      (e: unknown) => live && setLoaded({ version: ref.version, form: null, error: errorMessage(e) }),
    );
    return () => {
      live = false;
    };
  }, [backend, ref]);
  const current = loaded?.version === version ? loaded : null;
  const form = current?.form ?? null;
  const error = current?.error ?? null;
  const versions = useVersions(backend, server);
  // Until a version is chosen, the listing's: the form's once known (a link may name none).
  const shown = version ?? form?.text.version ?? null;
  return (
    <GalleryDialog title={`Install ${form?.text.title || props.title}`} testId="install-dialog" onClose={props.onClose}>
      {versions.length > 0 && shown ? <VersionField versions={versions} value={shown} onChange={setChosen} /> : null}
      {form ? (
        <RegistryInstall
          key={version ?? ""}
          backend={backend}
          server={ref}
          form={form}
          onInstalled={props.onInstalled}
          onClose={props.onClose}
        />
      ) : error ? (
        <>
          <ErrorBanner error={error} testId="install-error" role="alert" />
          <div className="actions">
            <button onClick={props.onClose}>Close</button>
          </div>
        </>
      ) : (
        <p className="muted">Reading its install form…</p>
      )}
    </GalleryDialog>
  );
}

const STATUS: Record<RegistryStatus, string> = { active: "", deprecated: "deprecated", deleted: "deleted" };

/** Every version of the server its registry lists, newest first (none when that cannot be had:
 *  the listing's own version is then the one installed). */
function useVersions(backend: Backend, server: RegistryRef): RegistryListing[] {
  const [versions, setVersions] = useState<RegistryListing[]>([]);
  useEffect(() => {
    let live = true;
    backend.registryVersions(server).then(
      (all) => live && setVersions(all),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [backend, server]);
  return versions;
}

/** The versions to choose from: a deprecated or deleted one is shown, and cannot be chosen. */
function VersionField(props: { versions: RegistryListing[]; value: string; onChange: (version: string) => void }) {
  const listed = props.versions.some((l) => l.text.version === props.value);
  return (
    <div className="field">
      <label htmlFor="install-version">Version</label>
      <Choice
        id="install-version"
        data-testid="install-version"
        value={props.value}
        onChoose={props.onChange}
      >
        {listed ? null : <option value={props.value}>{props.value}</option>}
        {props.versions.map((l) => {
          const v = l.text.version;
          const notes = [l.isLatest ? "latest" : "", STATUS[l.status]].filter(Boolean);
          return (
            <option key={v} value={v} disabled={l.status !== "active"} data-status={l.status}>
              {notes.length ? `${v} (${notes.join(", ")})` : v}
            </option>
          );
        })}
      </Choice>
    </div>
  );
}

function RegistryInstall(props: {
  backend: Backend;
  server: RegistryRef;
  form: InstallForm;
  onInstalled: (name: string) => void;
  onClose: () => void;
}) {
  const { backend, form } = props;
  const [at, setAt] = useState(0);
  const option = form.choices[at] ?? null;
  const needs = option?.needs ?? [];
  const [values, setValues] = useState<Values>(() => initialValues(needs));
  const [name, setName] = useState(form.name);
  const state = useInstall(needs, values, props.onInstalled);
  const t = form.text;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!option) return;
    const request = { server: props.server, choice: option.choice, kind: null, name: name.trim() || null, values: filled(needs, values) };
    state.install(() => backend.installServer(request));
  };
  return (
    <form noValidate onSubmit={submit} data-testid="install-form">
      <p>
        <code>{t.name}</code> <span className="muted">v{t.version}</span>
      </p>
      {t.description ? <p className="listing-description">{t.description}</p> : null}
      {form.choices.length > 1 ? (
        <div className="field">
          <label htmlFor="install-choice">How to run it</label>
          <Choice
            id="install-choice"
            data-testid="install-choice"
            value={String(at)}
            onChoose={(picked) => {
              const next = Number(picked);
              setAt(next);
              setValues(initialValues(form.choices[next]?.needs ?? []));
            }}
          >
            {form.choices.map((c, i) => (
              <option key={i} value={i}>
                {c.label}
              </option>
            ))}
          </Choice>
        </div>
      ) : option ? (
        <p className="muted" data-testid="install-only-choice">
          {option.label}
        </p>
      ) : (
        <ErrorBanner error="Its registry lists no way to run it here." testId="install-error" />
      )}
      <InstallFields
        backend={backend}
        needs={needs}
        values={values}
        problems={state.problems}
        onChange={(key, value) => setValues((v) => ({ ...v, [key]: value }))}
        onError={state.setError}
      />
      <InstallFooter name={name} onName={setName} state={state} onClose={props.onClose} />
    </form>
  );
}
