// The server form's sampling models: which of the person's models (listed as the sampling dialog
// lists them, `provider/model`) this server's sampling requests may go to; none picked, any of
// them. What it saves is the config's `samplingModels`; picks that say what the file had leave it
// as it was, so a definition's digest (the list is part of what is trusted) only changes when the
// list does.
import type { Backend } from "../../backend";
import { useModelChoices } from "../../components/model-choices";
import { Revealed } from "../../components/revealed";

/** The `samplingModels` the picks say: `original` when they name the same models, else the picks (none: absent). */
export function samplingModelsSetting(picked: string[], original: string[] | undefined): string[] | undefined {
  const had = new Set(original ?? []);
  if (new Set(picked).size === had.size && picked.every((m) => had.has(m))) return original;
  return picked.length ? picked : undefined;
}

export function SamplingModelsField(props: { backend: Backend; value: string[]; onChange: (v: string[]) => void }) {
  const choices = useModelChoices(props.backend);
  // What the file names stays listed even when it is not (or no longer) one of the person's models.
  const shown = [...choices, ...props.value.filter((m) => !choices.includes(m))];
  const toggle = (m: string, on: boolean) =>
    props.onChange(on ? [...props.value, m] : props.value.filter((v) => v !== m));
  return (
    <fieldset className="multi sampling-models" data-testid="sampling-models">
      <legend>Sampling models</legend>
      <p className="muted">
        The only models this server&apos;s sampling requests may go to; none picked: any of your models. Changing
        this asks you to trust the server again.
      </p>
      {shown.map((m) => (
        <label key={m} className="check">
          <input
            type="checkbox"
            data-testid={`sampling-model-${m}`}
            checked={props.value.includes(m)}
            onChange={(e) => toggle(m, e.currentTarget.checked)}
          />
          <span className="mono">
            <Revealed text={m} />
          </span>
        </label>
      ))}
    </fieldset>
  );
}
