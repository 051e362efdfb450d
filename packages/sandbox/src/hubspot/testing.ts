/**
 * Helpers for tests that drive the emulator over HTTP as a tool would: a client (bearer token,
 * JSON bodies, array query values as repeated keys) and valid request bodies to start from.
 */
export interface Reply {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: any;
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | string[]>;
  body?: unknown;
  /** Replaces the default headers (authorization, content-type) where given; `null` leaves one out. */
  headers?: Record<string, string | null>;
  /** Sent as is instead of JSON-encoding `body`. */
  rawBody?: string;
}

export type Call = (method: string, path: string, options?: CallOptions) => Promise<Reply>;

export function clientFor(baseUrl: string, token = 'test-token'): Call {
  return async (method, path, { query = {}, body, headers = {}, rawBody } = {}) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
    }
    const sent: Record<string, string> = {};
    const defaults = { authorization: `Bearer ${token}`, ...(body !== undefined || rawBody !== undefined ? { 'content-type': 'application/json' } : {}) };
    for (const [name, value] of Object.entries({ ...defaults, ...headers })) if (value !== null) sent[name] = value;
    const response = await fetch(`${baseUrl}${path}${search.size ? `?${search}` : ''}`, {
      method,
      headers: sent,
      body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}


/** A valid form definition (CreateMarketingForm body), as small as the schema allows. */
export function formDefinition(name: string) {
  return {
    formType: 'hubspot',
    name,
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-01T00:00:00Z',
    archived: false,
    fieldGroups: [
      {
        groupType: 'default_group',
        richTextType: 'text',
        fields: [
          {
            objectTypeId: '0-1',
            name: 'email',
            label: 'Email',
            required: true,
            hidden: false,
            fieldType: 'email',
            dependentFields: [],
            validation: { blockedEmailDomains: [], useDefaultBlockList: false },
          },
          { objectTypeId: '0-1', name: 'firstname', label: 'First name', required: false, hidden: false, fieldType: 'single_line_text', dependentFields: [] },
        ],
      },
    ],
    configuration: {
      language: 'en',
      createNewContactForNewEmail: true,
      editable: true,
      allowLinkToResetKnownValues: false,
      postSubmitAction: { type: 'thank_you', value: 'Thanks!' },
      prePopulateKnownValues: true,
      cloneable: true,
      notifyContactOwner: false,
      recaptchaEnabled: false,
      archivable: true,
      notifyRecipients: [],
    },
    displayOptions: {
      renderRawHtml: false,
      theme: 'default_style',
      submitButtonText: 'Submit',
      style: {
        backgroundWidth: '100%',
        fontFamily: 'arial',
        helpTextColor: '#000000',
        helpTextSize: '11px',
        labelTextColor: '#000000',
        labelTextSize: '13px',
        legalConsentTextColor: '#000000',
        legalConsentTextSize: '11px',
        submitAlignment: 'left',
        submitColor: '#ff0000',
        submitFontColor: '#ffffff',
        submitSize: '12px',
      },
    },
    legalConsentOptions: { type: 'none' },
  };
}
