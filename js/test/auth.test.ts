import type { AnyModel, RenderProps } from "@anywidget/types";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuthCardView, safeUrl, type AuthActions, type AuthCardState } from "../src/auth/card";
import authWidget, { type AuthTraits } from "../src/widgets/auth";
import { deferred, FakeModel as Model, flush } from "./harness";

const CODE_AND_KEY = {
  kind: "oauth-code",
  methods: [
    { kind: "oauth-code", label: "Account X", instructions: "Sign in, paste the code." },
    { kind: "api-key", label: "Key X", env_var: "X_KEY" },
  ],
} as const;

const LOGGED_OUT = { logged_in: false, summary: "not logged in" };

function mountCard(state: Partial<AuthCardState> = {}) {
  const root = document.createElement("div");
  document.body.append(root);
  const actions = {
    refresh: vi.fn<AuthActions["refresh"]>(() => Promise.resolve()),
    start: vi.fn<AuthActions["start"]>(() => Promise.resolve()),
    cancel: vi.fn<AuthActions["cancel"]>(() => Promise.resolve()),
    submitCode: vi.fn<AuthActions["submitCode"]>(() => Promise.resolve()),
    saveKey: vi.fn<AuthActions["saveKey"]>(() => Promise.resolve()),
    forgetKey: vi.fn<AuthActions["forgetKey"]>(() => Promise.resolve()),
    logout: vi.fn<AuthActions["logout"]>(() => Promise.resolve()),
  };
  const view = new AuthCardView(root, actions, {
    providerName: "Agent X",
    descriptor: { ...CODE_AND_KEY, methods: [...CODE_AND_KEY.methods] },
    status: LOGGED_OUT,
    ...state,
  });
  const q = <T extends Element = HTMLElement>(s: string) => root.querySelector<T>(s)!;
  return { root, view, actions, q };
}

afterEach(() => {
  document.body.replaceChildren();
});

describe("login card view", () => {
  it("shows the status and one section per described method, named by the data", () => {
    const { q, root } = mountCard();
    expect(q(".lw-auth-provider").textContent).toBe("Agent X");
    expect(q(".lw-auth-status").textContent).toBe("not logged in");
    expect(q(".lw-auth-status").dataset.loggedIn).toBe("false");
    const kinds = [...root.querySelectorAll<HTMLElement>(".lw-auth-method")].map(
      (s) => s.dataset.kind,
    );
    expect(kinds).toEqual(["oauth-code", "api-key"]);
    expect(q("[data-kind='oauth-code'] .lw-auth-label").textContent).toBe("Account X");
    expect(q(".lw-auth-error").hidden).toBe(true);
    expect(root.querySelector(".lw-auth-logout")).toBeNull();
  });

  it("a descriptor without methods offers its primary kind", () => {
    const { root } = mountCard({ descriptor: { kind: "external", instructions: "Use the CLI." } });
    expect(root.querySelector("[data-kind='external'] .lw-auth-hint")!.textContent).toBe(
      "Use the CLI.",
    );
    expect(root.querySelector(".lw-auth-start")).toBeNull();
  });

  it("oauth-code: log in, open the link, paste the code, submit", async () => {
    const { q, view, actions } = mountCard();
    q(".lw-auth-start").click();
    expect(actions.start).toHaveBeenCalledWith("oauth-code");
    await flush();
    view.setState({
      pendingLogin: { kind: "oauth-code", url: "https://example.test/auth?x=1", instructions: "" },
    });
    const link = q<HTMLAnchorElement>(".lw-auth-url");
    expect(link.href).toBe("https://example.test/auth?x=1");
    expect(link.target).toBe("_blank");
    const code = q<HTMLInputElement>(".lw-auth-code");
    code.value = "abc#def";
    q(".lw-auth-submit").click();
    expect(actions.submitCode).toHaveBeenCalledWith("abc#def");
  });

  it("keeps what is typed in the code field across a re-render", () => {
    const { q, view } = mountCard({
      pendingLogin: { kind: "oauth-code", url: "https://example.test/" },
    });
    q<HTMLInputElement>(".lw-auth-code").value = "half-typed";
    view.setState({ status: { logged_in: false, summary: "still out" } });
    expect(q<HTMLInputElement>(".lw-auth-code").value).toBe("half-typed");
  });

  it("never makes a non-web URL clickable", () => {
    expect(safeUrl("javascript:alert(1)")).toBeNull();
    expect(safeUrl("not a url")).toBeNull();
    const { q } = mountCard({ pendingLogin: { kind: "oauth-code", url: "javascript:alert(1)" } });
    expect(q(".lw-auth-url").tagName).toBe("CODE");
  });

  it("oauth-redirect: shows the port to forward and checks the status", () => {
    const { q, actions } = mountCard({
      descriptor: {
        kind: "oauth-redirect",
        methods: [{ kind: "oauth-redirect", redirect_port: 8085 }],
      },
      pendingLogin: { kind: "oauth-redirect", url: "https://example.test/" },
    });
    expect(q("[data-kind='oauth-redirect']").textContent).toContain("port 8085");
    expect(document.querySelector(".lw-auth-code")).toBeNull();
    q(".lw-auth-check").click();
    expect(actions.refresh).toHaveBeenCalled();
  });

  it("api-key: saves the typed key, empties the field and keeps it out of the markup", async () => {
    const { q, root, actions, view } = mountCard();
    const field = q<HTMLInputElement>(".lw-auth-key");
    expect(field.type).toBe("password");
    field.value = "sk-very-secret";
    q(".lw-auth-save").click();
    expect(actions.saveKey).toHaveBeenCalledWith("sk-very-secret");
    await flush();
    expect(q<HTMLInputElement>(".lw-auth-key").value).toBe("");
    expect(root.outerHTML).not.toContain("sk-very-secret");
    expect(root.querySelector(".lw-auth-forget")).toBeNull();
    view.setState({ hasStoredKey: true, status: { logged_in: true, summary: "logged in" } });
    q(".lw-auth-forget").click();
    expect(actions.forgetKey).toHaveBeenCalled();
    expect(root.querySelector(".lw-auth-logout")).not.toBeNull();
  });

  it("shows an action's error in the card and clears it on the next action", async () => {
    const { q, actions } = mountCard();
    actions.start.mockRejectedValueOnce(new Error("the login could not start: offline"));
    q(".lw-auth-start").click();
    await flush();
    expect(q(".lw-auth-error").hidden).toBe(false);
    expect(q(".lw-auth-error").textContent).toBe("the login could not start: offline");
    q(".lw-auth-refresh").click();
    await flush();
    expect(q(".lw-auth-error").hidden).toBe(true);
  });

  it("disables its buttons while an action runs", async () => {
    const { q, actions, root } = mountCard();
    const pending = deferred();
    actions.refresh.mockReturnValueOnce(pending.promise);
    q(".lw-auth-refresh").click();
    const buttons = [...root.querySelectorAll<HTMLButtonElement>("button")];
    expect(buttons.every((b) => b.disabled)).toBe(true);
    q(".lw-auth-start").click();
    expect(actions.start).not.toHaveBeenCalled();
    pending.resolve();
    await flush();
    expect(q<HTMLButtonElement>(".lw-auth-start").disabled).toBe(false);
  });

  it("shows why the status is unknown", () => {
    const { q } = mountCard({ status: null, statusError: "CLI missing" });
    expect(q(".lw-auth-status").textContent).toBe("Status unknown: CLI missing");
    expect(q(".lw-auth-status").dataset.loggedIn).toBe("unknown");
  });
});

/** The login card's model, logged out. */
class FakeModel extends Model {
  constructor() {
    super({
      provider_name: "Agent X",
      descriptor: CODE_AND_KEY,
      status: LOGGED_OUT,
      status_error: "",
      pending_login: null,
      has_stored_key: false,
    });
  }
}

describe("login card widget adapter", () => {
  async function show() {
    const model = new FakeModel();
    const el = document.createElement("div");
    document.body.append(el);
    const cleanup = await authWidget.render({
      model: model as unknown as AnyModel<AuthTraits>,
      el,
    } as unknown as RenderProps<AuthTraits>);
    const q = <T extends Element = HTMLElement>(s: string) => el.querySelector<T>(s)!;
    return { model, el, q, cleanup: cleanup as () => void };
  }

  it("sends the key once in an action with an id and never sets it on the model", async () => {
    const { model, q, el } = await show();
    q<HTMLInputElement>(".lw-auth-key").value = "sk-hidden-42";
    q(".lw-auth-save").click();
    expect(model.sent).toHaveLength(1);
    const msg = model.sent[0]!;
    expect(msg).toMatchObject({ kind: "action", action: "save_key", key: "sk-hidden-42" });
    expect(typeof msg.id).toBe("string");
    expect(JSON.stringify(model.attrs)).not.toContain("sk-hidden-42");
    model.emit("msg:custom", { kind: "result", id: msg.id, ok: true });
    model.set("has_stored_key", true);
    model.set("status", { logged_in: true, summary: "logged in (api key)" });
    await flush();
    expect(q(".lw-auth-status").textContent).toBe("logged in (api key)");
    expect(el.outerHTML).not.toContain("sk-hidden-42");
  });

  it("shows the kernel's error for a failed action", async () => {
    const { model, q } = await show();
    q(".lw-auth-start").click();
    const msg = model.sent[0]!;
    expect(msg).toMatchObject({ kind: "action", action: "start", login_kind: "oauth-code" });
    model.emit("msg:custom", { kind: "result", id: "someone-else", ok: false, error: "no" });
    model.emit("msg:custom", { kind: "result", id: msg.id, ok: false, error: "offline" });
    await flush();
    expect(q(".lw-auth-error").textContent).toBe("offline");
  });

  it("fails an unanswered action after the timeout, and cleans up its listeners", async () => {
    vi.useFakeTimers();
    try {
      const { model, q, cleanup } = await show();
      q(".lw-auth-refresh").click();
      await vi.advanceTimersByTimeAsync(30_000);
      expect(q(".lw-auth-error").textContent).toBe("no answer from the kernel");
      cleanup();
      expect(model.listenerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
