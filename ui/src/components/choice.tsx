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
  // Set by the `input` of a choice, so its `change` does not deliver it a second time.
  const tookInput = useRef(false);
  return (
    <select
      {...rest}
      onInput={(e) => {
        tookInput.current = true;
        onChoose(e.currentTarget.value);
      }}
      onChange={(e) => {
        if (tookInput.current) {
          tookInput.current = false;
          return;
        }
        onChoose(e.currentTarget.value);
      }}
    />
  );
}
