// The computer's engine, off the page's thread: each message is a request line, answered with
// one answer line (xq-gui-model's ThinkRequest and Answer), one at a time. If the engine
// cannot load, the answer says so under the request's id.
import init, { think } from "./xq_engine.js";

const ready = init();

self.onmessage = async (event) => {
  let answer;
  try {
    await ready;
    answer = think(event.data);
  } catch (error) {
    const id = String(event.data).split(";")[0];
    answer = id + ";failed;" + String(error).replace(/[;\r\n]/g, ",");
  }
  self.postMessage(answer);
};
