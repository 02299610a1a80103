import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';

export type ButtonKind = 'primary' | 'secondary' | 'danger' | 'quiet';

export interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type'> {
  kind?: ButtonKind;
  type?: 'button' | 'submit';
  /** Work under way: the button says so and ignores further clicks. */
  busy?: boolean;
  children: ComponentChildren;
}

/** The one button: primary for a page's main action, danger for what deletes. */
export function Button({ kind = 'secondary', type = 'button', busy = false, children, onClick, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      class={`btn btn-${kind}`}
      aria-busy={busy || undefined}
      onClick={(event) => {
        if (busy) return event.preventDefault();
        (onClick as ((e: Event) => void) | undefined)?.(event);
      }}
    >
      {children}
    </button>
  );
}

/** A link that looks like a button (to another page). */
export function ButtonLink({ href, kind = 'secondary', children }: { href: string; kind?: ButtonKind; children: ComponentChildren }) {
  return (
    <a class={`btn btn-${kind}`} href={href}>
      {children}
    </a>
  );
}
