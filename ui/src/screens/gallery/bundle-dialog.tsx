// Installing a .mcpb bundle chosen in the native file picker: what it is, who signed it (an
// unsigned one, or one whose signer no trusted authority vouches for, said plainly), what it asks for and the local name. The window never names the
// file: the shell installs the one it read.
import type { FormEvent } from "react";
import { useState } from "react";
import type { Backend } from "../../backend";
import type { BundleForm } from "../../bindings/BundleForm";
import { reveal } from "../../components/visible";
import { GalleryDialog, InstallFooter, useInstall } from "./dialog";
import type { Values } from "./install-fields";
import { filled, initialValues, InstallFields } from "./install-fields";

function Signature(props: { form: BundleForm }) {
  const s = props.form.signature;
  if (s.kind === "unsigned") {
    return (
      <div className="banner warn bundle-signature" data-testid="bundle-signature" data-signed="false">
        <strong>Unsigned bundle</strong> — {reveal(props.form.signatureText)}
      </div>
    );
  }
  // Only a certificate authority this computer trusts makes the signer's name more than its
  // own word.
  const vouched = !s.selfSigned && s.vouchedForBy !== null;
  return (
    <div
      className={`banner ${vouched ? "ok" : "warn"} bundle-signature`}
      data-testid="bundle-signature"
      data-signed="true"
      data-vouched={vouched ? "true" : "false"}
    >
      <strong>{vouched ? "Signed" : "Signed, by a name nobody vouches for"}</strong> — {reveal(props.form.signatureText)}
    </div>
  );
}

export function BundleDialog(props: { backend: Backend; form: BundleForm; onInstalled: (name: string) => void; onClose: () => void }) {
  const { backend, form } = props;
  const [values, setValues] = useState<Values>(() => initialValues(form.needs));
  const [name, setName] = useState(form.name);
  const state = useInstall(form.needs, values, props.onInstalled);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    state.install(() => backend.installBundle(name.trim() || null, filled(form.needs, values)));
  };
  return (
    <GalleryDialog title={`Install ${reveal(form.displayName || form.name)}`} testId="bundle-dialog" onClose={props.onClose}>
      <form noValidate onSubmit={submit} data-testid="bundle-form">
        <Signature form={form} />
        <dl className="facts">
          <dt>Bundle</dt>
          <dd>
            <code>{reveal(form.name)}</code> v{reveal(form.version)}
          </dd>
          {form.author ? (
            <>
              <dt>Author</dt>
              <dd>{reveal(form.author)}</dd>
            </>
          ) : null}
          <dt>SHA-256</dt>
          <dd>
            <code data-testid="bundle-sha256">{form.sha256}</code>
          </dd>
        </dl>
        {form.description ? <p className="listing-description">{reveal(form.description)}</p> : null}
        <InstallFields
          backend={backend}
          needs={form.needs}
          values={values}
          problems={state.problems}
          onChange={(key, value) => setValues((v) => ({ ...v, [key]: value }))}
          onError={state.setError}
        />
        <InstallFooter name={name} onName={setName} state={state} onClose={props.onClose} />
      </form>
    </GalleryDialog>
  );
}
