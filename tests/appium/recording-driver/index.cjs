// Appium's fake driver, plus the two screen-recording commands a real driver (UiAutomator2,
// XCUITest) serves. The "video" is a fixed MP4 header followed by the session id, so a test can
// tell that the file it finds came from this session's recording.
const { FakeDriver } = require("@appium/fake-driver");

const MP4_HEADER = Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32]);

class RecordingFakeDriver extends FakeDriver {
  static newMethodMap = {
    "/session/:sessionId/appium/start_recording_screen": {
      POST: { command: "startRecordingScreen", payloadParams: { optional: ["options"] } },
    },
    "/session/:sessionId/appium/stop_recording_screen": {
      POST: { command: "stopRecordingScreen", payloadParams: { optional: ["options"] } },
    },
  };

  async startRecordingScreen() {
    this.recordingSince = Date.now();
  }

  async stopRecordingScreen() {
    if (this.recordingSince === undefined) {
      return "";
    }
    this.recordingSince = undefined;
    return Buffer.concat([MP4_HEADER, Buffer.from(` session ${this.sessionId}`)]).toString("base64");
  }
}

module.exports = { RecordingFakeDriver };
