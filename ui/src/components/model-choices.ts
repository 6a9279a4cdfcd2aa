// The person's models as `provider/model` choices (the manual provider first, then each configured
// provider's models), and whether a server's sampling model allow-list lets one through: the same
// rule as `is_allowed` in src-tauri/policy/src/providers.rs (an entry is `provider/model` or a bare
// model name; an empty list allows any).
import { useEffect, useState } from "react";
import type { Backend } from "../backend";
import type { ProviderSettings } from "../bindings/ProviderSettings";

/** The choices the backend's provider list makes, as `provider/model`. */
export function modelChoices(providers: ProviderSettings[]): string[] {
  return ["manual/manual", ...providers.flatMap((p) => p.models.map((m) => `${p.id}/${m.model}`))];
}

/** The person's models, loaded from the backend (none while loading or when it fails). */
export function useModelChoices(backend: Backend): string[] {
  const [choices, setChoices] = useState<string[]>([]);
  useEffect(() => {
    backend.listProviders().then(
      (list) => setChoices(modelChoices(list)),
      () => setChoices([]),
    );
  }, [backend]);
  return choices;
}

/** A `provider/model` choice split at its first "/" (provider names never contain one; model names may). */
export function splitChoice(choice: string): [string, string] {
  const cut = choice.indexOf("/");
  return cut < 0 ? ["", choice] : [choice.slice(0, cut), choice.slice(cut + 1)];
}

/** Whether `allowed` (a server's `samplingModels`) lets its sampling go to `provider`'s `model`. */
export function isAllowed(allowed: readonly string[], provider: string, model: string): boolean {
  if (allowed.length === 0) return true;
  return allowed.some((a) => {
    const cut = a.indexOf("/");
    return a === model || (cut >= 0 && a.slice(0, cut) === provider && a.slice(cut + 1) === model);
  });
}

/** The allow-list a sampling request review's context carries (empty when it has none). */
export function allowedModelsOf(context: unknown): string[] {
  if (typeof context !== "object" || context === null || !("allowedModels" in context)) return [];
  const list = (context as { allowedModels?: unknown }).allowedModels;
  return Array.isArray(list) ? list.filter((m): m is string => typeof m === "string") : [];
}
