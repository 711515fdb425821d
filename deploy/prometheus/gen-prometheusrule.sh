#!/usr/bin/env bash
# Writes steward-prometheusrule.yaml: steward-rules.yaml's groups (comments and all) wrapped in
# a PrometheusRule for the Prometheus Operator. Run after editing steward-rules.yaml;
# tests/e2e/prometheus_rules.sh fails while the two differ.
set -euo pipefail
cd "$(dirname "$0")"
{
  cat <<'HEAD'
# Generated from steward-rules.yaml by gen-prometheusrule.sh: edit that file, then re-run it.
# For the Prometheus Operator (needs its monitoring.coreos.com CRDs, so it is not in
# kustomization.yaml): `kubectl apply -f deploy/prometheus/steward-prometheusrule.yaml`. Match
# `release` (or whatever your Prometheus selects rules by) to your installation.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: steward
  namespace: steward-system
  labels:
    app.kubernetes.io/name: steward
    app.kubernetes.io/part-of: steward
    release: prometheus
spec:
HEAD
  sed -n '/^groups:/,$p' steward-rules.yaml | sed 's/^\(.\)/  \1/'
} >steward-prometheusrule.yaml
