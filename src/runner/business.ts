// The business endpoints the spec names (§4.4). Their payloads come from the config.
export const BUSINESS_ENDPOINTS = ['evaluation', 'ach_transactions'] as const;
export type BusinessEndpoint = (typeof BUSINESS_ENDPOINTS)[number];
