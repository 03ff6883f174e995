#!/usr/bin/env bash
# Checks that README.md's "Using it from your solver" section holds exactly what this consumer project
# builds and runs: its ```java block is src/main/java/PoissonSolve.java, its ```xml block is the
# dependency part of pom.xml (indentation aside), and the BOM version is the project's version.
# Run from anywhere; exits 1 with a diff when they differ.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
section() { # the lines of README.md from "## Using it from your solver" to the next "## " heading
  awk '/^## /{on = ($0 == "## Using it from your solver")} on' "$root/README.md"
}
block() { # the lines inside the first ```$1 fence of the section
  section | awk -v lang="$1" '$0 == "```" lang {on = 1; next} on && $0 == "```" {exit} on'
}
fail=0
if [ -z "$(section)" ]; then
  echo "README.md has no '## Using it from your solver' section" >&2; exit 1
fi
if ! diff -u <(block java) "$here/src/main/java/PoissonSolve.java" >&2; then
  echo "README.md's java snippet differs from consumer/src/main/java/PoissonSolve.java (diff above)" >&2; fail=1
fi
if ! diff -u <(block xml | sed 's/^ *//') \
     <(sed -n '/^  <dependencyManagement>/,/^  <\/dependencies>/p' "$here/pom.xml" | sed 's/^ *//') >&2; then
  echo "README.md's xml block differs from the dependencies of consumer/pom.xml (diff above)" >&2; fail=1
fi
project_version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' "$root/pom.xml" | head -1)
bom_version=$(sed -n '/<artifactId>lobatto-bom<\/artifactId>/{n;s:.*<version>\(.*\)</version>.*:\1:p}' "$here/pom.xml")
if [ "$project_version" != "$bom_version" ]; then
  echo "consumer/pom.xml imports lobatto-bom $bom_version, the project is $project_version" >&2; fail=1
fi
exit $fail
