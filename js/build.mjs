// Bundles the widget into ../lab_widget/static/ (what RunView serves as _esm and
// _css) and the standalone demo into dist/.
//   node build.mjs              production build, minified
//   node build.mjs --dev        unminified, inline sourcemaps
//   node build.mjs --watch      rebuild on change (pair with ANYWIDGET_HMR=1)
//   node build.mjs --serve      build, then serve this folder for demo.html
import * as esbuild from "esbuild";

const flags = new Set(process.argv.slice(2));
const dev = flags.has("--dev");

const common = {
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: !dev,
  sourcemap: dev ? "inline" : false,
  logLevel: "info",
};

// The demo is served by name, not by position: targets are added over time.
const DEMO = "dist/standalone.js";

const targets = [
  { ...common, entryPoints: ["src/widget.ts"], outfile: "../lab_widget/static/widget.js" },
  { ...common, entryPoints: ["src/runs-widget.ts"], outfile: "../lab_widget/static/runs.js" },
  { ...common, entryPoints: ["src/auth-widget.ts"], outfile: "../lab_widget/static/auth.js" },
  { ...common, entryPoints: ["src/standalone.ts"], outfile: DEMO },
];

if (flags.has("--watch") || flags.has("--serve")) {
  const contexts = await Promise.all(targets.map((options) => esbuild.context(options)));
  if (flags.has("--watch")) await Promise.all(contexts.map((ctx) => ctx.watch()));
  else await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  if (flags.has("--serve")) {
    const { hosts, port } = await contexts[targets.findIndex((t) => t.outfile === DEMO)].serve({
      servedir: ".",
      host: "127.0.0.1",
    });
    console.log(`demo: http://${hosts[0]}:${port}/demo.html`);
  }
} else {
  await Promise.all(targets.map((options) => esbuild.build(options)));
}
