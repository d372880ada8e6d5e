#!/usr/bin/env bash
# The GitHub Action's check step (action.yml): annotations in the log, SARIF to a file, numalint's exit
# code kept (1: findings at or above fail-on; 2: usage error or nothing readable), never hidden.
set -uo pipefail
args=(check --fail-on "${NUMALINT_FAIL_ON:-warning}")
[ -n "${NUMALINT_KUBERNETES_VERSION:-}" ] && args+=(--kubernetes-version "$NUMALINT_KUBERNETES_VERSION")
[ -n "${NUMALINT_CONFIG:-}" ] && args+=(--config "$NUMALINT_CONFIG")
read -r -a paths <<< "${NUMALINT_PATHS:-.}"
status=0
if [ -n "${NUMALINT_SARIF:-}" ]; then
  # the SARIF log is written whatever the findings; its exit code is the run's verdict
  numalint "${args[@]}" --format sarif "${paths[@]}" > "$NUMALINT_SARIF" || status=$?
  if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "sarif-file=$NUMALINT_SARIF" >> "$GITHUB_OUTPUT"; fi
fi
numalint "${args[@]}" --format github "${paths[@]}" || status=$?
exit "$status"
