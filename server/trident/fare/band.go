package fare

import "time"

// bandIndexAt is the band in force at ts, read on the wall clock of the
// tariff's time zone (Europe/London, so British Summer Time is honoured:
// 21:30 UTC on a summer evening is 22:30 BST, which is night). The dated
// windows of the schedule (Christmas, New Year, 2 January) are checked
// first, in file order; otherwise the daily windows decide. Windows include
// their start and exclude their end, to the minute: 21:59:59 is day,
// 22:00:00 is night.
func (t *Tariff) bandIndexAt(ts time.Time) int {
	local := ts.In(t.loc)
	minute := local.Hour()*60 + local.Minute()
	key := yearKey(local.Month(), local.Day(), minute)
	for _, w := range t.special {
		if w.contains(key) {
			return w.band
		}
	}
	for _, w := range t.daily {
		if w.contains(minute) {
			return w.band
		}
	}
	// Unreachable: Parse checks that the daily windows cover every minute.
	return 0
}
