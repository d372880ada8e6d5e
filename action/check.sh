#!/usr/bin/env bash
# The GitHub Action's check step (action.yml): annotations in the log, SARIF to a file, numalint's exit
# code kept (1: findings at or above fail-on; 2: usage error or nothing readable), never hidden.
set -uo pipefail
args=(check --fail-on "${NUMALINT_FAIL_ON:-warning}")
[ -n "${NUMALINT_KUBERNETES_VERSION:-}" ] && args+=(--kubernetes-version "$NUMALINT_KUBERNETES_VERSION")
[ -n "${NUMALINT_CONFIG:-}" ] && args+=(--config "$NUMALINT_CONFIG")
read -r -a paths <<< "${NUMALINT_PATHS:-.}"
args+=(--format github)
# one run: annotations and the job summary in the log, the SARIF log in its file whatever the findings
[ -n "${NUMALINT_SARIF:-}" ] && args+=(--format "sarif=$NUMALINT_SARIF")
status=0
numalint "${args[@]}" "${paths[@]}" || status=$?
if [ -n "${NUMALINT_SARIF:-}" ] && [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "sarif-file=$NUMALINT_SARIF" >> "$GITHUB_OUTPUT"
fi
exit "$status"
