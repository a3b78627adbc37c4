#!/usr/bin/env bash
# Regenerates the table of docs/guide/settings.md (the lines between its two markers) from
# porta's settings table (src/base/settings.cpp), through `porta-info --settings-markdown`.
# CTest's settings.check fails while the page and porta-info differ.
#   scripts/dev/settings_doc.sh [path/to/porta-info]   (default build/bin/porta-info)
set -euo pipefail
cd "$(dirname "$0")/../.."
info=${1:-build/bin/porta-info}
page=docs/guide/settings.md
table=$(mktemp)
out=$(mktemp)
trap 'rm -f "$table" "$out"' EXIT
"$info" --settings-markdown > "$table"
awk -v table="$table" '
  /^<!-- settings table: generated/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /^<!-- end of settings table -->/ { skip = 0 }
  !skip { print }' "$page" > "$out"
cp "$out" "$page"
echo "regenerated $page from $info"
