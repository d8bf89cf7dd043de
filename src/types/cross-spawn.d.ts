// cross-spawn ships no types; its one export is node:child_process `spawn` with Windows command resolution.
declare module 'cross-spawn' {
  import { spawn } from 'node:child_process';
  export default spawn;
}
