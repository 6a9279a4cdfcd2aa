// A <select> that takes the user's choice at the first event that carries it.
//
// A choice fires `input`, then `change`. React hears a select's `onChange` on `change` only, so a
// render that lands between the two (a server's state arriving, say) puts the controlled value
// back, and `change` then reports the old value: the choice is lost. WebKit's WebDriver leaves a
// few milliseconds there, and a real-window test lost choices to it under load.
import type { SelectHTMLAttributes } from "react";
import { useRef } from "react";

type Props = Omit<SelectHTMLAttributes<HTMLSelectElement>, "onChange" | "onInput" | "value"> & {
  value: string;
  /** Called once a choice, with the chosen option's value. */
  onChoose: (value: string) => void;
};

export function Choice({ onChoose, ...rest }: Props) {
  // The value an `input` delivered, so that the `change` of the same choice does not deliver it
  // a second time (a `change` that brings another value is a choice of its own).
  const taken = useRef<string | null>(null);
  return (
    <select
      {...rest}
      onInput={(e) => {
        taken.current = e.currentTarget.value;
        onChoose(e.currentTarget.value);
      }}
      onChange={(e) => {
        const value = e.currentTarget.value;
        const delivered = taken.current === value;
        taken.current = null;
        if (!delivered) onChoose(value);
      }}
    />
  );
}
