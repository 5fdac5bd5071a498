// Imports a Chrome trace's GPU processes with speedscope's own importer (src/import/trace-event.ts
// of github.com/jlfwong/speedscope, 1.25.0) and prints, per GPU stream, what speedscope would show:
// its importer warnings (an event it could not close where the file says), the deepest stack, and
// how many frames it gives a length other than the event's "dur" (by more than 1 ns).
// Run: see docs/viewers.md.
import * as fs from 'fs'
import {importTraceEvents} from './src/import/trace-event'

const file = process.argv[2]
const raw = JSON.parse(fs.readFileSync(file, 'utf8'))
const gpuPids = new Set<number>()
for (const e of raw.traceEvents) {
  if (e.ph === 'M' && e.name === 'process_name' && String(e.args.name).startsWith('GPU')) {
    gpuPids.add(e.pid)
  }
}
raw.traceEvents = raw.traceEvents.filter((e: any) => gpuPids.has(e.pid))

// speedscope names a frame "<name> <JSON of args>"; keep the written dur of each such key.
const durOf = new Map<string, number | null>()
for (const e of raw.traceEvents) {
  if (e.ph !== 'X') continue
  const key = e.args ? `${e.name} ${JSON.stringify(e.args)}` : e.name
  durOf.set(key, durOf.has(key) ? null : e.dur)  // null: not unique, not compared
}

const warnings: string[] = []
console.warn = (m: string) => warnings.push(m)
const group = importTraceEvents(raw)
console.log(`${file}: ${warnings.length} importer warnings on GPU streams`)
for (const w of warnings.slice(0, 2)) console.log(`  first warnings: ${w.slice(0, 150)}...`)
for (const p of group.profiles) {
  let depth = 0, maxDepth = 0, frames = 0, wrong = 0, worst = 0, worstName = '', worstDur = 0
  const open: number[] = []
  p.forEachCall(
    (_node, value) => {
      open.push(value)
      maxDepth = Math.max(maxDepth, ++depth)
      frames++
    },
    (node, value) => {
      const length = value - open.pop()!
      depth--
      const dur = durOf.get(node.frame.name)
      if (dur != null && Math.abs(length - dur) > 0.001) {
        wrong++
        if (length - dur > worst) {
          worst = length - dur
          worstName = node.frame.name.split(' {')[0].slice(0, 40)
          worstDur = dur
        }
      }
    },
  )
  console.log(`  ${p.getName()}: ${frames} frames, deepest stack ${maxDepth}, ` +
    `${wrong} frames not as long as their dur` +
    (wrong ? `; worst "${worstName}": ${(worstDur + worst).toFixed(3)} us for dur ${worstDur.toFixed(3)} us` : ''))
}
