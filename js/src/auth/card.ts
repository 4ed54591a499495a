// The login card: status line, then one section per login method the provider's
// auth descriptor lists. Knows nothing about Jupyter or about any provider: it
// renders the state it is given and calls the actions it is given.
import { h } from "../shared/dom";
import { isObj, str, type Obj } from "../shared/guards";

export type AuthKind = "oauth-code" | "oauth-redirect" | "api-key" | "external";

export interface AuthMethod {
  kind: AuthKind;
  label?: string;
  instructions?: string;
  env_var?: string;
  redirect_port?: number;
}

export interface AuthDescriptor {
  kind: AuthKind;
  instructions?: string;
  methods?: AuthMethod[];
}

export interface AuthStatus {
  logged_in: boolean;
  summary?: string;
  method?: string;
  kind?: AuthKind;
  source?: string;
  detail?: string;
}

export interface PendingLogin {
  kind: AuthKind;
  url: string;
  instructions?: string;
}

/** The card's traits, as the kernel sets them. */
export interface AuthCardState {
  providerName: string;
  descriptor: AuthDescriptor | null;
  status: AuthStatus | null;
  statusError: string;
  pendingLogin: PendingLogin | null;
  hasStoredKey: boolean;
}

export interface AuthActions {
  refresh(): Promise<void>;
  start(kind: AuthKind): Promise<void>;
  cancel(): Promise<void>;
  submitCode(code: string): Promise<void>;
  saveKey(key: string): Promise<void>;
  forgetKey(): Promise<void>;
  logout(): Promise<void>;
}

export const EMPTY_AUTH_STATE: AuthCardState = {
  providerName: "",
  descriptor: null,
  status: null,
  statusError: "",
  pendingLogin: null,
  hasStoredKey: false,
};

const KINDS: readonly AuthKind[] = ["oauth-code", "oauth-redirect", "api-key", "external"];

const isKind = (v: unknown): v is AuthKind => KINDS.includes(v as AuthKind);

/** Read a descriptor from untrusted trait data; unknown kinds are dropped. */
export function normalizeDescriptor(value: unknown): AuthDescriptor | null {
  if (!isObj(value) || !isKind(value.kind)) return null;
  const methods = (Array.isArray(value.methods) ? value.methods : [])
    .filter((m): m is Obj => isObj(m) && isKind(m.kind))
    .map((m) => ({
      kind: m.kind as AuthKind,
      label: str(m.label, undefined),
      instructions: str(m.instructions, undefined),
      env_var: str(m.env_var, undefined),
      redirect_port: typeof m.redirect_port === "number" ? m.redirect_port : undefined,
    }));
  return { kind: value.kind, instructions: str(value.instructions, undefined), methods };
}

export function normalizeStatus(value: unknown): AuthStatus | null {
  if (!isObj(value) || typeof value.logged_in !== "boolean") return null;
  return {
    logged_in: value.logged_in,
    summary: str(value.summary, undefined),
    method: str(value.method, undefined),
    kind: isKind(value.kind) ? value.kind : undefined,
    source: str(value.source, undefined),
    detail: str(value.detail, undefined),
  };
}

export function normalizeLogin(value: unknown): PendingLogin | null {
  if (!isObj(value) || !isKind(value.kind) || typeof value.url !== "string") return null;
  return { kind: value.kind, url: value.url, instructions: str(value.instructions, undefined) };
}

/** Only web links become clickable: a `javascript:` URL from anywhere never does. */
export function safeUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error);
}

const DEFAULT_LABELS: Record<AuthKind, string> = {
  "oauth-code": "Browser login",
  "oauth-redirect": "Browser login",
  "api-key": "API key",
  external: "Managed outside the notebook",
};

export class AuthCardView {
  readonly #root: HTMLElement;
  readonly #actions: AuthActions;
  #state: AuthCardState = EMPTY_AUTH_STATE;
  #busy = false;
  #error = "";

  constructor(root: HTMLElement, actions: AuthActions, state: Partial<AuthCardState> = {}) {
    this.#root = root;
    this.#actions = actions;
    root.classList.add("lw-auth");
    this.setState(state);
  }

  setState(state: Partial<AuthCardState>): void {
    this.#state = { ...this.#state, ...state };
    this.#render();
  }

  destroy(): void {
    this.#root.replaceChildren();
    this.#root.classList.remove("lw-auth");
  }

  /** Run an action; its failure shows in the card until the next action. */
  async #run(action: () => Promise<void>): Promise<void> {
    if (this.#busy) return;
    // Started before the re-render below, so it reads the fields the user filled in.
    let promise: Promise<void>;
    try {
      promise = action();
    } catch (error) {
      promise = Promise.reject(error);
    }
    this.#busy = true;
    this.#error = "";
    this.#render();
    try {
      await promise;
    } catch (error) {
      this.#error = errorText(error);
    } finally {
      this.#busy = false;
      this.#render();
    }
  }

  #render(): void {
    const s = this.#state;
    const status = s.status;
    const statusText = s.statusError
      ? `Status unknown: ${s.statusError}`
      : status
        ? [status.summary ?? (status.logged_in ? "logged in" : "not logged in"), status.source]
            .filter(Boolean)
            .join(" · ")
        : "Checking…";
    const header = h(
      "div",
      { class: "lw-auth-header" },
      h("span", { class: "lw-auth-provider" }, s.providerName),
      h(
        "span",
        {
          class: "lw-auth-status",
          "data-logged-in": status ? String(status.logged_in) : "unknown",
        },
        statusText,
      ),
    );
    const error = h("div", { class: "lw-auth-error", role: "alert" }, this.#error);
    error.hidden = !this.#error;
    const methods = s.descriptor
      ? (s.descriptor.methods?.length
          ? s.descriptor.methods
          : [{ kind: s.descriptor.kind, instructions: s.descriptor.instructions }]
        ).map((m) => this.#method(m))
      : [];
    const footer = h(
      "div",
      { class: "lw-auth-footer" },
      this.#button("lw-auth-refresh", "Refresh status", () => this.#actions.refresh()),
      status?.logged_in
        ? this.#button("lw-auth-logout", "Log out", () => this.#actions.logout())
        : null,
    );
    // Re-rendering must not eat what the user is typing (values, never attributes).
    const typed = new Map<string, string>();
    for (const input of this.#root.querySelectorAll("input"))
      typed.set(input.className, input.value);
    this.#root.replaceChildren(header, error, ...methods, footer);
    for (const input of this.#root.querySelectorAll("input")) {
      input.value = typed.get(input.className) ?? "";
    }
  }

  #button(cls: string, label: string, action: () => Promise<void>) {
    const button = h("button", { type: "button", class: `lw-auth-button ${cls}` }, label);
    button.disabled = this.#busy;
    button.addEventListener("click", () => void this.#run(action));
    return button;
  }

  #method(method: AuthMethod): HTMLElement {
    const section = h(
      "section",
      { class: "lw-auth-method", "data-kind": method.kind },
      h("div", { class: "lw-auth-label" }, method.label || DEFAULT_LABELS[method.kind]),
      method.instructions ? h("div", { class: "lw-auth-hint" }, method.instructions) : null,
    );
    switch (method.kind) {
      case "oauth-code":
      case "oauth-redirect":
        section.append(...this.#oauth(method));
        break;
      case "api-key":
        section.append(...this.#apiKey(method));
        break;
      case "external":
        break;
    }
    return section;
  }

  #oauth(method: AuthMethod): HTMLElement[] {
    const login = this.#state.pendingLogin;
    if (!login || login.kind !== method.kind) {
      return [this.#button("lw-auth-start", "Log in", () => this.#actions.start(method.kind))];
    }
    const href = safeUrl(login.url);
    const link = href
      ? h("a", { class: "lw-auth-url", href, target: "_blank", rel: "noopener noreferrer" }, href)
      : h("code", { class: "lw-auth-url" }, login.url);
    const parts: HTMLElement[] = [h("div", { class: "lw-auth-link-row" }, "Open: ", link)];
    if (login.instructions) parts.push(h("div", { class: "lw-auth-hint" }, login.instructions));
    if (method.kind === "oauth-redirect" && method.redirect_port) {
      parts.push(
        h(
          "div",
          { class: "lw-auth-hint" },
          `The page redirects to port ${method.redirect_port} on the kernel's machine; ` +
            "forward that port if your browser runs elsewhere.",
        ),
      );
    }
    if (method.kind === "oauth-code") {
      const input = h("input", {
        type: "text",
        class: "lw-auth-code",
        placeholder: "Paste the code here",
        autocomplete: "off",
        spellcheck: "false",
      });
      input.disabled = this.#busy;
      const submit = () => this.#actions.submitCode(input.value);
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          void this.#run(submit);
        }
      });
      parts.push(
        h(
          "div",
          { class: "lw-auth-row" },
          input,
          this.#button("lw-auth-submit", "Submit code", submit),
        ),
      );
    } else {
      parts.push(this.#button("lw-auth-check", "I have signed in", () => this.#actions.refresh()));
    }
    parts.push(this.#button("lw-auth-cancel", "Cancel", () => this.#actions.cancel()));
    return parts;
  }

  #apiKey(method: AuthMethod): HTMLElement[] {
    // The key lives in this field until it is sent, then the field is emptied: it is
    // never written to a trait, the DOM's attributes or the saved notebook.
    const input = h("input", {
      type: "password",
      class: "lw-auth-key",
      placeholder: method.env_var ? `${method.env_var} value` : "API key",
      autocomplete: "off",
      spellcheck: "false",
    });
    input.disabled = this.#busy;
    const save = () => {
      const key = input.value;
      input.value = "";
      return this.#actions.saveKey(key);
    };
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        void this.#run(save);
      }
    });
    const row = h(
      "div",
      { class: "lw-auth-row" },
      input,
      this.#button("lw-auth-save", "Save", save),
      this.#state.hasStoredKey
        ? this.#button("lw-auth-forget", "Forget", () => this.#actions.forgetKey())
        : null,
    );
    const stored = this.#state.hasStoredKey
      ? h("div", { class: "lw-auth-hint lw-auth-stored" }, "A key is kept for this session.")
      : null;
    return stored ? [row, stored] : [row];
  }
}
