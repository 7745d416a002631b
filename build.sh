#!/usr/bin/env bash
# Set up, build, serve and test the todo-trace lesson. Usage: ./build.sh setup|build|dist|serve|test|bench|fuzz [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"

WASM_PACK_VERSION=0.15.1
PORT="${PORT:-8000}"
CHROMEDRIVER="/usr/bin/chromedriver"
export PATH="$HOME/.cargo/bin:$PATH"

# Each step says when it began, in seconds since the command started: where a run's time went.
step() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs what is missing and skips what is present, so running it twice costs nothing.
setup() {
  # grep reads all of its input (no -q), so pipefail never sees a broken pipe.
  if ! rustup target list --installed | grep -x wasm32-unknown-unknown >/dev/null; then
    step "adding the wasm32 target"
    rustup target add wasm32-unknown-unknown
  fi
  local components
  components=$(rustup component list --installed)
  grep '^clippy' <<<"$components" >/dev/null || rustup component add clippy
  grep '^rustfmt' <<<"$components" >/dev/null || rustup component add rustfmt
  if ! command -v wasm-pack >/dev/null; then
    step "installing wasm-pack $WASM_PACK_VERSION (a few minutes, once)"
    cargo install wasm-pack --locked --version "$WASM_PACK_VERSION"
  fi
  # Chromium, its driver, and the Chinese fonts a Chinese reader has: without them every Chinese glyph
  # is drawn as a box, so no test and no screenshot would see the page as its readers do. python3:
  # practice (the agent loop on the command line) runs main.py with it.
  local packages=()
  [ -x /usr/bin/chromium ] || packages+=(chromium)
  [ -x "$CHROMEDRIVER" ] || packages+=(chromium-driver)
  dpkg-query -W -f='${Status}' fonts-noto-cjk 2>/dev/null | grep 'ok installed' >/dev/null || packages+=(fonts-noto-cjk)
  command -v python3 >/dev/null || packages+=(python3)
  if [ ${#packages[@]} -gt 0 ]; then
    step "installing ${packages[*]} (apt)"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"
  fi
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    step "installing node modules"
    npm ci --no-audit --no-fund
  fi
}

# One module: wasm-pack builds it with the cargo flags given, then the npm package's wasm-opt shrinks it (wasm-pack
# cannot download binaryen here). --converge (-Oz again until the size stops falling) saves about 0.2 KB gzip.
module() {
  local dir=$1
  shift
  wasm-pack build --target web --release --out-dir "$dir" --no-pack -- "$@"
  node_modules/.bin/wasm-opt -Oz --converge --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$dir/todo_trace_bg.wasm" -o "$dir/todo_trace_bg.wasm"
}

build() {
  local started=$SECONDS
  step "building the wasm modules: www/pkg (every figure) and www/pkg-plan (figures 1-3, fetched first)"
  module www/pkg
  module www/pkg-plan --no-default-features --features console_error_panic_hook
  mkdir -p www/vendor
  # speed-highlight's tokenizer and its Rust rules: plain ES modules, about 1 KB gzip together.
  cp node_modules/@speed-highlight/core/dist/tokenize.js www/vendor/shj-tokenize.js
  cp node_modules/@speed-highlight/core/dist/languages/rs.js www/vendor/shj-rs.js
  cp node_modules/@speed-highlight/core/dist/languages/todo.js www/vendor/shj-todo.js
  # Their declarations, for tsc (the page never fetches them).
  cp node_modules/@speed-highlight/core/dist/tokenize.d.ts www/vendor/shj-tokenize.d.ts
  cp node_modules/@speed-highlight/core/dist/languages/rs.d.ts www/vendor/shj-rs.d.ts
  cp node_modules/@speed-highlight/core/dist/languages/todo.d.ts www/vendor/shj-todo.d.ts
  local wasm
  for wasm in www/pkg/todo_trace_bg.wasm www/pkg-plan/todo_trace_bg.wasm; do
    echo "$wasm: $(wc -c < "$wasm") bytes raw, $(gzip -9 -c "$wasm" | wc -c) bytes gzip"
  done
  echo "built in $((SECONDS - started)) s"
}

# dist/todo-trace/: one folder an author copies to their site; dist/example.html: an article that embeds two figures.
dist() {
  step "writing dist/"
  local file total=0 gz
  node dist.mjs
  # The sum of gzip -9 of each file, as a server that compresses would send them (for information: bytes count
  # through the load times that ./build.sh bench measures on Slow 4G, not against a budget of their own).
  while IFS= read -r file; do
    gz=$(gzip -9 -c "$file" | wc -c)
    total=$((total + gz))
  done < <(find dist -type f)
  echo "dist/: $(find dist -type f | wc -l) files, $(du -sb dist | cut -f1) bytes raw, $total bytes gzip -9"
}

serve() {
  echo "Serving the lesson at http://127.0.0.1:$PORT/ (Ctrl-C stops it)"
  exec node serve.mjs www "$PORT"
}

# The end-to-end suite mostly waits on the browser (about a third of two cores' time, bench/history.md), so it runs
# beside the Rust tests, in a process group of its own that is stopped if this script stops first.
e2e_start() {
  e2e_log=$(mktemp)
  setsid node --test --test-concurrency=4 tests/e2e/ >"$e2e_log" 2>&1 &
  e2e_pid=$!
  trap 'kill -- -"$e2e_pid" 2>/dev/null || true; rm -f "$e2e_log"' EXIT
}

# Prints the suite's report, then fails if the suite failed.
e2e_finish() {
  local status=0
  wait "$e2e_pid" || status=$?
  trap - EXIT
  cat "$e2e_log"
  rm -f "$e2e_log"
  return "$status"
}

run_tests() {
  step "format"
  cargo fmt --all --check
  step "end-to-end tests started (the page in headless Chromium; their report comes last)"
  e2e_start
  step "clippy (native and wasm32)"
  cargo clippy --workspace --all-targets -- -D warnings
  cargo clippy --workspace --all-targets --target wasm32-unknown-unknown -- -D warnings
  step "native tests"
  # --lib --bins --tests: not the examples, which are benchmarks that clippy above has already compiled.
  cargo test --workspace --lib --bins --tests
  step "browser tests (wasm-bindgen-test in headless Chromium)"
  wasm-pack test --headless --chrome --chromedriver "$CHROMEDRIVER"
  step "types of the page (tsc --noEmit against the module's generated declarations)"
  node_modules/.bin/tsc --noEmit -p .
  step "live model (practice --live against a local mock of the Messages API; the pinned SDK as judge)"
  cargo build --bin practice
  node --test --test-concurrency=1 tests/live/
  step "end-to-end tests (waiting for them to end)"
  e2e_finish
  step "every test passed"
}

cmd="${1:-}"
case "$cmd" in
  setup) setup ;;
  build) setup; build ;;
  dist) setup; build; dist ;;
  serve) setup; build; serve ;;
  test) setup; build; dist; run_tests ;;
  bench) setup; build; dist; node bench/run.mjs ;;
  fuzz) setup; ./fuzz/run.sh "${2:-60}" ;;
  *)
    echo "usage: ./build.sh setup|build|dist|serve|test|bench|fuzz [SECONDS]" >&2
    exit 2
    ;;
esac
