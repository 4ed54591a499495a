// The anywidget entry point of ProviderAuthCard: traits in, actions out as
// request/response messages with ids. All rendering lives in auth.ts.
import "./auth.css";
import type { AnyModel, Render } from "@anywidget/types";
import {
  AuthCardView,
  normalizeDescriptor,
  normalizeLogin,
  normalizeStatus,
  type AuthActions,
  type AuthCardState,
} from "./auth";
import { ACTION_TIMEOUT_MS } from "./channel";

export interface AuthTraits {
  provider_name: string;
  descriptor: unknown;
  status: unknown;
  status_error: string;
  pending_login: unknown;
  has_stored_key: boolean;
}

const TRAITS = [
  "provider_name",
  "descriptor",
  "status",
  "status_error",
  "pending_login",
  "has_stored_key",
] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null;

let counter = 0;
function newId(): string {
  counter += 1;
  return `${Date.now().toString(36)}-${counter.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export function readState(model: AnyModel<AuthTraits>): AuthCardState {
  const name: unknown = model.get("provider_name");
  const error: unknown = model.get("status_error");
  return {
    providerName: typeof name === "string" ? name : "",
    descriptor: normalizeDescriptor(model.get("descriptor")),
    status: normalizeStatus(model.get("status")),
    statusError: typeof error === "string" ? error : "",
    pendingLogin: normalizeLogin(model.get("pending_login")),
    hasStoredKey: model.get("has_stored_key") === true,
  };
}

/** Actions over custom messages: each settles with the kernel's matching result. */
export function kernelActions(
  model: AnyModel<AuthTraits>,
  timeoutMs = ACTION_TIMEOUT_MS,
): AuthActions & { dispose(): void } {
  const pending = new Map<string, { resolve(): void; reject(e: Error): void; timer: number }>();
  const onMessage = (msg: unknown) => {
    if (!isObj(msg) || msg.kind !== "result" || typeof msg.id !== "string") return;
    const entry = pending.get(msg.id);
    if (!entry) return;
    pending.delete(msg.id);
    clearTimeout(entry.timer);
    if (msg.ok === true) entry.resolve();
    else entry.reject(new Error(typeof msg.error === "string" ? msg.error : "the action failed"));
  };
  model.on("msg:custom", onMessage);
  const request = (action: string, args: Obj = {}) =>
    new Promise<void>((resolve, reject) => {
      const id = newId();
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error("no answer from the kernel"));
      }, timeoutMs) as unknown as number;
      pending.set(id, { resolve, reject, timer });
      try {
        model.send({ ...args, kind: "action", id, action });
      } catch (error) {
        clearTimeout(timer);
        pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  return {
    refresh: () => request("refresh"),
    start: (kind) => request("start", { login_kind: kind }),
    cancel: () => request("cancel"),
    submitCode: (code) => request("submit_code", { code }),
    saveKey: (key) => request("save_key", { key }),
    forgetKey: () => request("forget_key"),
    logout: () => request("logout"),
    dispose: () => {
      model.off("msg:custom", onMessage);
      for (const entry of pending.values()) {
        clearTimeout(entry.timer);
        entry.reject(new Error("the widget was closed"));
      }
      pending.clear();
    },
  };
}

const render: Render<AuthTraits> = ({ model, el }) => {
  const actions = kernelActions(model);
  const view = new AuthCardView(el, actions, readState(model));
  const onChange = () => view.setState(readState(model));
  for (const trait of TRAITS) model.on(`change:${trait}`, onChange);
  return () => {
    for (const trait of TRAITS) model.off(`change:${trait}`, onChange);
    actions.dispose();
    view.destroy();
  };
};

export default { render };
