# median(s): the median of the space-separated numbers in s, 0 when there are none; sets the globals lo and hi to the
# least and greatest of them. Shared by the benchmark scripts' summaries (placed-bulk.sh, metaroce-medium.sh,
# connection-vs-raw.sh), which put it before their own program: awk "$(cat benchmarks/median.awk)"' ... '.
function median(s,   a, k, i, j, t) {
  k = split(s, a, " ")
  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  lo = a[1]; hi = a[k]
  return k == 0 ? 0 : (k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2)
}
