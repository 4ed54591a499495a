// A recorded conversation on a plain page, without Jupyter: every element with
// `data-lw-conversation="<url of a JSON recording>"` becomes a read-only chat.
import "./styles/chat.css";
import type { Traits } from "./types";
import { ChatView } from "./chat/view";

/** The widget's traits, as a saved notebook's widget state holds them. */
export type Recording = Partial<Traits>;

const readOnly = (): Promise<void> =>
  Promise.reject(new Error("read-only: this is a recorded conversation"));

export function mountRecording(root: HTMLElement, recording: Recording): ChatView {
  const view = new ChatView(
    root,
    { send: readOnly, interrupt: readOnly, clear: readOnly, answer: readOnly },
    {
      pendingDialog: recording.pending_dialog ?? null,
      commands: recording.commands ?? [],
      info: {
        providerName: recording.provider_name ?? "",
        state: recording.state ?? "idle",
        stateReason: recording.state_reason ?? "",
        attachCommand: recording.attach_command ?? "",
        clearCommand: recording.clear_command ?? "",
      },
    },
  );
  view.applySnapshot(recording._snapshot ?? {});
  return view;
}

async function mountAll(): Promise<void> {
  for (const el of document.querySelectorAll<HTMLElement>("[data-lw-conversation]")) {
    const url = el.dataset.lwConversation ?? "";
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      mountRecording(el, (await response.json()) as Recording);
    } catch (error) {
      // file:// pages cannot fetch: say how to serve the folder instead.
      el.textContent = `Could not load ${url} (${String(error)}). Serve this folder over http, e.g. with \`npm run demo\`.`;
    }
  }
}

void mountAll();
