#!/usr/bin/env bash
# A fixture of CTest's settings.check.catches_drift: a probe that sets a variable nothing reads.
PORTA_SCAN_LOAD=async build/bin/porta-bench --filter=cumsum
