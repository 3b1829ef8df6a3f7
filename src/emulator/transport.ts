// How a listener talks, apart from what it answers: the parts a gateway in front of the service
// decides. The conformant default is the emulator's own; profiles (profiles/) change them the way
// real deployments do, which the spec allows.

export interface Transport {
  /** How long an idle keep-alive connection stays open, ms (gateways often close them within a second or two). */
  keepAliveMs: number;
  /**
   * Added before each business answer, ms: a service whose business work takes its time (the
   * larger of this and EmulatorOptions.businessLatencyMs applies).
   */
  businessLatencyMs: number;
}

/** Long enough for k6 and undici to reuse connections, short enough not to hoard sockets. */
export const DEFAULT_TRANSPORT: Transport = {
  keepAliveMs: 5_000,
  businessLatencyMs: 0,
};
