#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The fleet files in packaging/fleet are valid: YAML lint for all, the
# Ansible playbook through ansible-playbook --syntax-check, the Kubernetes
# manifest against the API's schemas (kubernetes-models, from npm), the
# kubectl-exec trigger script through shellcheck. (That they really fire
# every host is upload_fleet's part.)
. "$(dirname "$0")/lib.sh"

FLEET=${SOURCE_DIR:?}/packaging/fleet
K8S_CHECK=$SOURCE_DIR/tests/k8s-schema
command -v yamllint >/dev/null || prereq_missing "yamllint"
command -v ansible-playbook >/dev/null || prereq_missing "ansible-playbook (ansible-core)"
command -v shellcheck >/dev/null || prereq_missing "shellcheck"
command -v node >/dev/null || prereq_missing "node (nodejs)"
[ -d "$K8S_CHECK/node_modules/kubernetes-models" ] ||
	prereq_missing "kubernetes-models (scripts/install-deps runs npm ci in tests/k8s-schema)"

yamllint -s "$FLEET" || fail "yamllint"
(cd "$FLEET/ansible" && ansible-playbook --syntax-check -i inventory.example perfsnap-dump.yml) \
	>"$WORK/ansible.out" 2>&1 || { cat "$WORK/ansible.out"; fail "ansible-playbook --syntax-check"; }
grep -qi warning "$WORK/ansible.out" && { cat "$WORK/ansible.out"; fail "ansible-playbook warned"; }
node "$K8S_CHECK/validate.mjs" "$FLEET"/kubernetes/*.yaml || fail "Kubernetes schema check"
shellcheck "$FLEET/kubernetes/perfsnap-k8s-dump" || fail "shellcheck"

# The checks catch what they are for.
sed 's/hostPID: true/hostPID: "yes"/' "$FLEET/kubernetes/perfsnapd-daemonset.yaml" >"$WORK/bad.yaml"
node "$K8S_CHECK/validate.mjs" "$WORK/bad.yaml" >/dev/null 2>&1 &&
	fail "the schema check passed a string hostPID"
sed 's/^  tasks:/  taskz:/' "$FLEET/ansible/perfsnap-dump.yml" >"$WORK/bad.yml"
cp "$FLEET/ansible/inventory.example" "$WORK/"
(cd "$WORK" && ansible-playbook --syntax-check -i inventory.example bad.yml) >/dev/null 2>&1 &&
	fail "the syntax check passed a broken playbook"
echo "PASS: fleet packaging lints and validates"
