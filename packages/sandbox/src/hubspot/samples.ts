/** Request bodies to start from: valid against their operations and small as the schemas allow. */

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
