# plot.gp -- draw `wasp bench` results (bench/README.md).
#
#   gnuplot -e "csv='bench/results/standard.csv'; out='bench/results/standard'" bench/plot.gp
#   gnuplot -e "csv='bench/results/standard.csv'; scale='bench/results/scale.csv'; out='bench/results/standard'" bench/plot.gp
#
# reads the CSV that `wasp bench -o PREFIX` writes (columns by name) and
# draws two PNGs:
#   OUT-time.png     solve time (load excluded; loading drawn apart)
#                    against cluster size, one
#                    line per solver, over the instances named frag-* and
#                    scale-* (the size series of the standard and scale
#                    suites; give the scale CSV as `scale` to add it);
#   OUT-quality.png  the deep512-t* instances (one model, ILP budgets of
#                    1..10 s): gap to the LP bound and pods admitted,
#                    against the budget, with greedy and BestFit as flat
#                    references.
# Needs gnuplot 5 (Debian: gnuplot-nox); not needed by `make check`.

if (!exists("csv")) csv = 'bench/results/standard.csv'
if (!exists("out")) out = 'bench/results/standard'

set datafile separator ","
set datafile missing NaN
set terminal pngcairo size 900,560 font "sans,10" noenhanced
set grid
set key top left box opaque

series(s) = (strstrt(s, "frag-") == 1 || strstrt(s, "scale-") == 1)
budget(s) = (strstrt(s, "deep512-t") == 1)
# column value for rows of one solver in a selection, else NaN (skipped)
pick(sel, solver, col) = (sel && strcol("solver") eq solver && \
			  strcol("state") eq "ok") ? column(col) : NaN

# ------------------------------------------------------------ time vs size
set output out."-time.png"
set title "wasp bench: solve time vs cluster size (load shown apart)"
set xlabel "nodes"
set ylabel "seconds"
set key bottom right box opaque
set logscale xy
# one line per solver over both files (the scale rows, if any, continue
# the standard ones: the size series are sorted by nodes)
if (exists("scale")) {
	both = sprintf("< (cat '%s'; tail -n +2 '%s')", csv, scale)
} else {
	both = csv
}
plot \
  both using (pick(series(strcol("instance")), "greedy", "nodes")):"solve_s" \
      with linespoints lw 2 pt 7 lc rgb "#7b2cbf" title "wasp greedy", \
  both using (pick(series(strcol("instance")), "auto", "nodes")):"solve_s" \
      with linespoints lw 2 pt 5 lc rgb "#009e73" title "wasp auto", \
  both using (pick(series(strcol("instance")), "ilp", "nodes")):"solve_s" \
      with linespoints lw 2 pt 9 lc rgb "#0072b2" title "wasp ilp (5 s budget)", \
  both using (pick(series(strcol("instance")), "bestfit", "nodes")):"solve_s" \
      with linespoints lw 1 pt 4 dt 2 lc rgb "#e69f00" title "Kueue-style BestFit", \
  both using (pick(series(strcol("instance")), "podwise", "nodes")):"solve_s" \
      with linespoints lw 1 pt 6 dt 3 lc rgb "#d55e00" title "pod by pod", \
  both using (pick(series(strcol("instance")), "greedy", "nodes")):"load_s" \
      with lines lw 1 dt 4 lc rgb "#777777" title "loading the snapshot (JSON)"
unset logscale

# ------------------------------------------------------------ quality vs budget
set output out."-quality.png"
set title "wasp bench: deep512 (512 nodes, 4 levels, 100 gangs) vs time budget"
set xlabel "time budget, seconds"
set ylabel "gap to the LP bound, %"
set y2label "pods admitted (whole gangs, in their domains)"
set ytics nomirror
set y2tics
set logscale x
set xrange [0.8:12]
set yrange [0:*]
set y2range [0:*]
# With no deep512 ILP row that reports a gap, autoscaling y1 fails ("all points
# y value undefined") and no picture is drawn: fix the range instead, and
# the gap series is skipped with a warning.
ngap = int(system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == \"gap\") g = i; if ($i == \"solver\") v = i; if ($i == \"instance\") t = i }; next } $t ~ /^deep512-t/ && $v == \"ilp\" && $g != \"\" && $g != \"nan\" { n++ } END { print n + 0 }' '%s'", csv)))
if (ngap == 0) set yrange [0:1]
set key bottom right box opaque
plot \
  csv using (pick(budget(strcol("instance")), "ilp", "time_limit_s")):(100*column("gap")) \
      axes x1y1 with linespoints lw 2 pt 7 lc rgb "#7b2cbf" title "wasp ilp: gap %", \
  csv using (pick(budget(strcol("instance")), "ilp", "time_limit_s")):"admitted_pods" \
      axes x1y2 with linespoints lw 2 pt 5 lc rgb "#009e73" title "wasp ilp: pods admitted", \
  csv using (pick(budget(strcol("instance")), "greedy", "time_limit_s")):"admitted_pods" \
      axes x1y2 with points pt 9 ps 2 lc rgb "#0072b2" title "wasp greedy: pods admitted", \
  csv using (pick(budget(strcol("instance")), "bestfit", "time_limit_s")):"admitted_pods" \
      axes x1y2 with points pt 4 ps 2 lc rgb "#e69f00" title "BestFit: pods admitted", \
  csv using (pick(budget(strcol("instance")), "podwise", "time_limit_s")):"admitted_pods" \
      axes x1y2 with points pt 6 ps 2 lc rgb "#d55e00" title "pod by pod: pods admitted"
