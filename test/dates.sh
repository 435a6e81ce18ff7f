#!/usr/bin/env bash
# `npm run test:dates [DATE...]`: the suites whose answers depend on the calendar date, run once per date
# with the test clock there (TEST_CLOCK; test/helpers/clock.ts). By default the two dates where a year's
# rules turn, in the coming year: just after New Year (a new year's vacation, numbering and holidays;
# months reaching back over the turn) and just after March 31 (when carried-over vacation expires). CI runs
# it after the suite (.ci/run); the plain suite runs at its fixed mid-year instant.
#
# The suites, chosen by what reads the clock's date (the clock's now alone, as timers and expiries use it,
# gives the same answers on any date, and those suites stay out):
#   time-off          today parts vacation taken from planned, expires carry-overs, makes a year pro rata;
#                     the calendar feed's window, cancelling begun absences, deleting schedules in effect,
#                     this year's holidays
#   client-invoices   an invoice is issued (and a credit note dated) today, numbered in today's year
#   time-zones        `tally seed` dates two years of work, time off and invoices back from today
#   list-plans        what a monthly budget spent is summed over the clock's month (the statement's plan is
#                     checked: it failed on a date whose month held none of the test's entries)
# All dates run in one vitest run, a project per date (test/dates.config.ts), and write test-results/dates.json,
# which .ci/run counts.
set -uo pipefail
cd "$(dirname "$0")/.."

suites=(test/time-off.test.ts test/client-invoices.test.ts test/time-zones.test.ts test/list-plans.test.ts)
next=$(($(date -u +%Y) + 1))
if [ "$#" -gt 0 ]; then
  dates=("$@")
else
  dates=("$next-01-02" "$next-04-01")
fi

echo "== the date-sensitive suites with the clock at ${dates[*]}"
TEST_DATES="${dates[*]}" TEST_DATE_SUITES="${suites[*]}" npx vitest run --config test/dates.config.ts
