// Fixture of the doc_refs check: two references resolve, two dangle (a missing file, a missing
// anchor); the doc_refs.catches_dangling test passes only when exactly those two are reported.
// Resolves: docs/page.md#a-section-with-code and docs/page.md.
// Dangles: docs/missing.md (no such file).
// Dangles: docs/page.md#no-such-section (no such heading).
