#!/bin/sh
# The headless Chromium test lives in tests/browser/; the e2e suite runs it too.
exec sh "$(dirname "$0")/../browser/chromium.t"
