"""The reviewer web app: built in the reviewer-UI issue."""
