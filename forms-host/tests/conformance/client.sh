#!/bin/sh
# The client command the conformance suite runs (`conformance client --command …/client.sh`):
# `forms host` against the scenario's server, whose URL the suite appends as the last
# argument and whose name it sets in MCP_CONFORMANCE_SCENARIO. FORMS_BIN is the `forms`
# binary; the host's standard error is appended to FORMS_HOST_LOG (where a test reads the
# page's URL), a form is answered on the page unless FORMS_HOST_ANSWER names an answer
# file, and FORMS_HOST_PROTOCOL (default 2025-11-25) is the protocol asked for.
set -eu
url=$1
bin=${FORMS_BIN:?FORMS_BIN names the forms binary}
log=${FORMS_HOST_LOG:-/dev/null}
set -- host --protocol "${FORMS_HOST_PROTOCOL:-2025-11-25}" --url "$url"
case ${MCP_CONFORMANCE_SCENARIO:-} in
  initialize) ;;
  tools_call) set -- "$@" --call add_numbers --args '{"a":2,"b":3}' ;;
  sse-retry) set -- "$@" --call test_reconnection ;;
  elicitation-sep1034-client-defaults) set -- "$@" --call test_client_elicitation_defaults ;;
  *) echo "client.sh: no call for scenario ${MCP_CONFORMANCE_SCENARIO:-(none)}" >&2; exit 2 ;;
esac
if [ -n "${FORMS_HOST_ANSWER:-}" ]; then set -- "$@" --answer "$FORMS_HOST_ANSWER"; fi
exec "$bin" "$@" 2>>"$log"
