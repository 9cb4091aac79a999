# Shared by deploy/setup.sh, deploy/setup-tests.sh and deploy/test.sh (sourced, not run, from
# the repository's root).

# Installs the OS packages `$2…`, needed for `$1`, when this is root (else says what to run
# and exits). What apt and the packages' scripts print goes to a file, shown only if the
# installation fails: here it is beside the point, and some of it reads as an error when it
# is not (`pg_lsclusters: not found` on a fresh Debian, the package's own PostgreSQL cluster
# being created, services not started for want of an init system).
install_os_packages() {
  local why=$1 log
  shift
  if [ "$(id -u)" -ne 0 ]; then
    echo "$* needed for $why, and this is not root: run 'sudo apt-get install -y $*' and run this again" >&2
    exit 1
  fi
  echo "Installing $* from the OS packages (for $why)..."
  log=$(mktemp)
  if ! (export DEBIAN_FRONTEND=noninteractive && apt-get update -qq && apt-get install -y -qq "$@") > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "apt-get install $* failed (above: the end of its output; all of it in $log)" >&2
    return 1
  fi
  rm -f "$log"
}

# `use_suitable_node` makes the `node`, `npm` and `npx` of the PATH a Node.js the web client's
# tools run on. Its build (Vite 8 with rolldown) needs Node.js ^20.19 or >= 22.12; on an older
# one it fails at once with an unhelpful SyntaxError ('node:util' has no 'styleText'). Debian
# 13's nodejs is 20.19 and serves; Debian 12's is 18.20. Then Node.js and npm are installed
# from the npm registry (the node-linux-<arch> package holds Node.js's official binary) into
# target/node, and put first on the PATH of these scripts only: the system's Node.js stays.

# What target/node gets when the machine's Node.js is too old.
PRIVATE_NODE_VERSION=22.23.5
PRIVATE_NPM_VERSION=10.9.9
PRIVATE_NODE_BIN="$PWD/target/node/node_modules/.bin"

# Whether the Node.js `$1` (default: the PATH's) is one the client's build runs on.
node_is_suitable() {
  "${1:-node}" -e '
    const [major, minor] = process.versions.node.split(".").map(Number);
    process.exit((major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22 ? 0 : 1);
  ' 2> /dev/null
}

use_suitable_node() {
  if ! command -v npm > /dev/null; then
    install_os_packages "the web client" nodejs npm
  fi
  if node_is_suitable; then
    return
  fi
  if [ "$("$PRIVATE_NODE_BIN/node" --version 2> /dev/null)" != "v$PRIVATE_NODE_VERSION" ]; then
    local arch
    case "$(uname -m)" in
      x86_64) arch=x64 ;;
      aarch64) arch=arm64 ;;
      *) arch="" ;;
    esac
    if [ -z "$arch" ]; then
      echo "Node.js $(node --version) is too old for the web client (it needs ^20.19 or >= 22.12), and the npm registry has no Node.js for $(uname -m): install a newer Node.js and run this again" >&2
      exit 1
    fi
    echo "Node.js $(node --version) is too old for the web client (it needs ^20.19 or >= 22.12):" \
      "installing Node.js $PRIVATE_NODE_VERSION and npm $PRIVATE_NPM_VERSION from the npm registry into target/node," \
      "used by these scripts only..."
    rm -rf target/node
    mkdir -p target/node
    npm install --prefix target/node --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "node-linux-$arch@$PRIVATE_NODE_VERSION" "npm@$PRIVATE_NPM_VERSION" > /dev/null
  fi
  export PATH="$PRIVATE_NODE_BIN:$PATH"
  if ! node_is_suitable; then
    echo "target/node holds no usable Node.js ($(node --version 2>&1)): remove target/node and run this again" >&2
    exit 1
  fi
  echo "Using Node.js $(node --version) and npm $(npm --version) from target/node (yourself: export PATH=\"$PRIVATE_NODE_BIN:\$PATH\")"
}
