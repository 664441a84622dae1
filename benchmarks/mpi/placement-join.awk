# Lays benchmark windows over the CPU placement core_round_trip --watch observed meanwhile (see placed.sh).
#   awk -f placement-join.awk LOOKS WINDOWS
# LOOKS: core_round_trip --watch output ("# summary", then "time_ns round_trip_ns" per look, in time order).
# WINDOWS: lines "#window START_NS END_NS US_PER_CALL [TAG]" (allreduce_perf -t, PlacedAllReduce; a "[0] " prefix from
# jccl run is allowed); other lines are ignored.
# Output: one line per window, "PLACEMENT US_PER_CALL TAG": near when every look from the last one before the window
# to the first one after it found the CPUs near (round trip under 150 ns), far when every one found them apart (over
# 250 ns), else mixed (or unknown when no look surrounds the window). TAG is "-" when the window had none.
FNR == NR {
  if ($1 != "#" && NF >= 2) { n++; at[n] = $1 + 0; rt[n] = $2 + 0 }
  next
}
{
  sub(/^\[[0-9]+\] /, "")
  if ($1 != "#window" || NF < 4) next
  start = $2 + 0; end = $3 + 0
  first = 0; last = 0
  for (i = 1; i <= n; i++) {
    if (at[i] <= start) first = i
    if (at[i] >= end) { last = i; break }
  }
  placement = "unknown"
  if (first > 0 && last > 0) {
    near = 0; far = 0
    for (i = first; i <= last; i++) { if (rt[i] < 150) near++; else if (rt[i] > 250) far++ }
    looks = last - first + 1
    placement = near == looks ? "near" : far == looks ? "far" : "mixed"
  }
  print placement, $4, (NF >= 5 ? $5 : "-")
}
